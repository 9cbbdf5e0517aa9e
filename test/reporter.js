// The spec reporter, plus one closing line that any CI log reader understands:
// "tests: N passed, N failed, N skipped", or with the tier's name when the config gives one
// (`"reporter-option": ["tier=unit"]` closes with "unit tests: …"). Skipped tests print why they are
// skipped where they skip.
'use strict';
const path = require('node:path');
const Mocha = require('mocha');
const { EVENT_RUN_END } = Mocha.Runner.constants;

/**
 * In strict mode (XRT_STRICT_SKIPS=1) the allowed skips and why, from the compiled policy the tests
 * counted them in (test/helpers/skip-policy.ts; the same module instance: one path, one cache entry).
 */
function strictSkipsSummary() {
  try {
    return require(path.join(__dirname, '..', 'out', 'test', 'helpers', 'skip-policy.js')).strictSkipsSummary();
  } catch (e) {
    return `strict skips (XRT_STRICT_SKIPS=1): the list could not be read (${e.message})\n`;
  }
}

class SpecWithTotals extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const tier = options && options.reporterOptions && options.reporterOptions.tier;
    const label = tier ? `${tier} tests` : 'tests';
    runner.once(EVENT_RUN_END, () => {
      if (process.env.XRT_STRICT_SKIPS === '1') process.stdout.write(`\n${strictSkipsSummary()}`);
      const s = runner.stats || {};
      process.stdout.write(`\n${label}: ${s.passes || 0} passed, ${s.failures || 0} failed, ${s.pending || 0} skipped\n`);
    });
  }
}
module.exports = SpecWithTotals;
