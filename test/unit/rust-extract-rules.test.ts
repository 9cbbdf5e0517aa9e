import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { extractRepository } from '../../src/engine/extract/extract';

/** A function long enough for the release's line filters, returning a value. */
function longFn(name: string): string {
  const body = Array.from({ length: 24 }, (_, i) => `    let v${i} = x + ${i};`).join('\n');
  return `pub fn ${name}(x: u32) -> u32 {\n${body}\n    v23 * 2\n}\n`;
}

// cargo test builds but never runs the tests of examples and of the build script: a test placed there
// would score "not compiled" for the harness's own choice of task.
describe('Rust extraction: code cargo test never tests is tool-ignored, counted', () => {
  let repo: string | undefined;
  afterEach(() => {
    if (repo) fs.rmSync(repo, { recursive: true, force: true });
  });

  it('drops build.rs and examples/, keeps src/ (a module named build included)', async () => {
    repo = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-rsext-'));
    const files: Record<string, string> = {
      'Cargo.toml': '[package]\nname = "lib"\nversion = "0.1.0"\nedition = "2021"\n',
      'src/lib.rs': `pub mod build;\n\n${longFn('kept')}`,
      'src/build.rs': longFn('module_named_build'),
      'build.rs': `${longFn('script_helper')}\nfn main() {\n    println!("{}", script_helper(1));\n}\n`,
      'examples/demo.rs': `${longFn('example_helper')}\nfn main() {\n    println!("{}", example_helper(1));\n}\n`,
      'crates/inner/build.rs': longFn('inner_script'),
    };
    for (const [rel, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(repo, rel)), { recursive: true });
      fs.writeFileSync(path.join(repo, rel), text);
    }
    const { tasks, summary } = await extractRepository(repo, { repository: { name: 'lib', url: repo, commit: null } });
    assert.deepEqual(tasks.map((t) => t.function_name).sort(), ['kept', 'module_named_build']);
    assert.equal(summary.languages.rust!.dropped['tool-ignored'], 5, 'build.rs (2), examples/demo.rs (2), crates/inner/build.rs (1)');
  });
});
