/**
 * The suite's entry point, loaded by VS Code's extension host (the `extensionTestsPath` of the
 * runner's payload): mocha over the compiled `*.test.js` next to this file, in name order.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as util from 'node:util';
import Mocha from 'mocha';
import { RESULT_MARKER, START_MARKER, type SuiteCounts } from '../protocol';

/** The compiled tests whose source still exists (out/ may hold tests deleted since). */
function testFiles(): string[] {
  const sources = path.resolve(__dirname, '..', '..', '..', '..', 'test', 'vscode', 'suite');
  return fs
    .readdirSync(__dirname)
    .filter((f) => f.endsWith('.test.js') && fs.existsSync(path.join(sources, f.replace(/\.js$/, '.ts'))))
    .sort()
    .map((f) => path.join(__dirname, f));
}

export function run(): Promise<void> {
  // The extension host forwards console.log's arguments unformatted (mocha's '%s' templates would
  // arrive as they are), so they are formatted first; mocha's reporters log through the reference
  // they keep in Base.consoleLog.
  const log = console.log;
  const formatted = (...args: unknown[]): void => log(util.format(...args));
  Mocha.reporters.Base.consoleLog = formatted;
  console.log = formatted;
  // No colours: the output travels through the workbench's log to the runner's stdout.
  const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 60_000, reporter: 'spec' });
  if (process.env.XREPOTEST_VSCODE_GREP) mocha.grep(process.env.XREPOTEST_VSCODE_GREP);
  for (const file of testFiles()) mocha.addFile(file);
  console.log(START_MARKER);
  return new Promise((resolve, reject) => {
    const runner = mocha.run((failures) => {
      console.log = log;
      const stats = runner.stats;
      const counts: SuiteCounts = { passed: stats?.passes ?? 0, failed: stats?.failures ?? failures, skipped: stats?.pending ?? 0 };
      console.log(`${RESULT_MARKER}${JSON.stringify(counts)}`);
      if (failures > 0) reject(new Error(`${failures} test(s) failed`));
      else resolve();
    });
  });
}
