import { strict as assert } from 'node:assert';
import { checkEnvironment, formatEnvironment } from '../../src/engine/environment';
import { hasTool } from '../helpers/skip';

describe('xrepotest doctor: what this machine can run', function () {
  this.timeout(120_000);

  it('reports every language, with what is missing and how to install it', async () => {
    const report = await checkEnvironment();
    assert.deepEqual(report.languages.map((l) => l.language).sort(), ['go', 'julia', 'php', 'ruby', 'rust']);
    const go = report.languages.find((l) => l.language === 'go')!;
    assert.equal(go.local === null, hasTool('go', ['version']), 'go runs locally exactly when go is installed');
    const julia = report.languages.find((l) => l.language === 'julia')!;
    if (!hasTool('julia')) {
      assert.match(julia.local!, /julia is not installed \(https:\/\/julialang\.org/);
      assert.ok(report.missing.some((m) => m.includes('julia is not installed')), 'listed among what to install');
    }
    const text = formatEnvironment(report);
    for (const l of ['Rust', 'Go', 'PHP', 'Ruby', 'Julia']) assert.match(text, new RegExp(`^  ${l}: (ready|can't run here: .*)$`, 'm'));
    if (!hasTool('julia')) assert.match(text, /^  Julia: can't run here: julia is not installed\n {4}How to fix: install Julia \(/m);
    assert.match(text, report.languages.some((l) => l.verdicts.local || l.verdicts.docker) ? /^After installing, restart the editor/m : /^Nothing missing/m);
    assert.doesNotMatch(text, /npm install|scripts\/setup\.sh|Tried:\s*$/m, 'user-level: no developer advice, no dangling "Tried:"');
  });
});
