import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { extractRepository } from '../../src/engine/extract/extract';
import { collidingNames, declaredNames, predictedCollisions, renameIdentifiers } from '../../src/engine/languages/go/collisions';

describe('Go extraction: code the go tool never builds, and entry points', () => {
  const longFn = (name: string): string =>
    `func ${name}(n int) int {\n` + Array.from({ length: 22 }, (_, i) => `\tn = n + ${i}\n`).join('') + '\treturn n\n}\n';
  let repo = '';
  after(() => {
    if (repo) fs.rmSync(repo, { recursive: true, force: true });
  });

  it('drops _examples/, testdata/ and .hidden/ code and func main / func init, counted by rule', async () => {
    repo = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-goext-'));
    const files: Record<string, string> = {
      'go.mod': 'module example.com/lib\n\ngo 1.21\n',
      'lib.go': `package lib\n\n${longFn('Kept')}`,
      '_examples/hello/main.go': `package main\n\n${longFn('Example')}\nfunc main() {\n\tprintln(Example(1))\n}\n`,
      'testdata/gen.go': `package gen\n\n${longFn('Generated')}`,
      '.hidden/h.go': `package h\n\n${longFn('Hidden')}`,
      'cmd/app/main.go': `package main\n\n${longFn('Helper')}\nfunc init() {\n\tprintln("x")\n}\n\nfunc main() {\n\tprintln(Helper(1))\n}\n`,
    };
    for (const [rel, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(repo, rel)), { recursive: true });
      fs.writeFileSync(path.join(repo, rel), text);
    }
    const { tasks, summary } = await extractRepository(repo, { repository: { name: 'lib', url: repo, commit: null } });
    assert.deepEqual(tasks.map((t) => t.function_name).sort(), ['Helper', 'Kept']);
    const go = summary.languages.go!;
    assert.equal(go.dropped['tool-ignored'], 2, '_examples: Example and main');
    assert.equal(go.dropped['entry-point'], 2, 'cmd/app: init and main');
    assert.equal(go.dropped['test-code'], 1, 'testdata counts as test code, as before');
    assert.equal(go.seen, 7, 'Kept, Example, main, Generated, Helper, init, main: .hidden is never parsed');
  });
});

describe('Go collisions: reading the compiler and renaming in our file', () => {
  it('finds our colliding names whichever file the compiler reports first, and not collisions between other files', () => {
    const output = [
      './xrepotest_1_test.go:5:6: TestStatus redeclared in this block',
      '\t./inventory_test.go:32:6: other declaration of TestStatus',
      './zz_test.go:3:6: helper redeclared in this block',
      '\t./xrepotest_1_test.go:9:6: other declaration of helper',
      './a_test.go:3:6: TestOld redeclared in this block',
      '\t./b_test.go:3:6: other declaration of TestOld',
    ].join('\n');
    assert.deepEqual(collidingNames(output, 'xrepotest_1_test.go').sort(), ['TestStatus', 'helper']);
  });

  it('renames identifiers and types, never a selector, a string or a comment', async () => {
    const code = 'package p\n\n// helper does x\ntype box struct{ helper int }\n\nfunc helper() box { return box{} }\n\nfunc TestX(t *testing.T) {\n\tb := helper()\n\t_ = b.helper\n\tt.Log("helper", b)\n\tvar _ box\n}\n';
    const out = await renameIdentifiers(code, new Map([['helper', 'helper_xrt1'], ['box', 'box_xrt1']]));
    assert.equal(
      out,
      'package p\n\n// helper does x\ntype box_xrt1 struct{ helper int }\n\nfunc helper_xrt1() box_xrt1 { return box_xrt1{} }\n\nfunc TestX(t *testing.T) {\n\tb := helper_xrt1()\n\t_ = b.helper\n\tt.Log("helper", b)\n\tvar _ box_xrt1\n}\n',
    );
  });
});

describe('Go collisions: known before the compile, from the package\'s own files', () => {
  it('lists every top-level name a file declares (grouped or not), but methods, _ and init', async () => {
    const names = await declaredNames(
      'package inventory\n\ntype (\n\tA struct{}\n\tB = int\n)\ntype C int\nvar x, y = 1, 2\nvar (\n\tm int\n\tn, o = 3, 4\n\t_ = 5\n)\nconst K = 1\nconst (\n\tL = iota\n\tM\n)\nfunc init() {}\nfunc TestStatus(t *testing.T) {}\nfunc (A) Method() {}\nfunc helper() int { return 1 }\n',
    );
    assert.deepEqual(names, { pkg: 'inventory', names: ['A', 'B', 'C', 'x', 'y', 'm', 'n', 'o', 'K', 'L', 'M', 'TestStatus', 'helper'] });
  });

  it('predicts a collision only with files of the same package clause', () => {
    const ours = { pkg: 'inventory', names: ['TestStatus', 'helper', 'TestFresh'] };
    const others = [
      { pkg: 'inventory', names: ['Status', 'TestStatus'] },
      { pkg: 'inventory_test', names: ['helper'] },
      { pkg: 'inventory', names: ['TestStatus', 'newTestInventory'] },
    ];
    assert.deepEqual(predictedCollisions(ours, others), ['TestStatus']);
    assert.deepEqual(predictedCollisions({ pkg: 'inventory_test', names: ['helper'] }, others), ['helper']);
    assert.deepEqual(predictedCollisions(ours, []), []);
  });
});
