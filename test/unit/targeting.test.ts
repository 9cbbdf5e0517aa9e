import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { classifyDocument, type DocumentFunction } from '../../src/engine/extract/document';
import { BENCHMARK_ONLY_RULES, DROP_RULES, isBenchmarkOnly, UNTESTABLE_REASONS } from '../../src/engine/extract/filters';
import { outsideFilterNote, refusalOf } from '../../src/engine/extract/targeting';
import { withLens } from '../../src/server/scoring';
import { DEFAULT_ENGINE_SETTINGS, ENGINE_SETTINGS_SCHEMA } from '../../src/shared/protocol';

const GO = `package app

func init() {
	registry = map[string]int{}
}

func main() {
	println(Double(2))
}

// Double is short: the benchmark's filter leaves it out.
func Double(n int) int {
	return n * 2
}
`;

function byName(fns: DocumentFunction[], name: string): DocumentFunction {
  const f = fns.find((x) => x.name === name);
  assert.ok(f, `${name} among ${fns.map((x) => x.name).join(', ')}`);
  return f;
}

describe('Targeting any function: the benchmark filter against what no test can call', () => {
  it('splits every drop rule into benchmark-only or untestable, and nothing is both', () => {
    const untestableRules = ['test-code', 'tool-ignored', 'cfg-excluded', 'nightly-only', 'entry-point', 'parse-error'];
    for (const rule of DROP_RULES) assert.equal(isBenchmarkOnly(rule), !untestableRules.includes(rule), rule);
    assert.deepEqual([...BENCHMARK_ONLY_RULES].sort(), ['max-lines', 'min-lines', 'name', 'no-return', 'php-visibility', 'scaffolding-folder']);
    assert.ok(UNTESTABLE_REASONS.every((r) => !(BENCHMARK_ONLY_RULES as readonly string[]).includes(r)));
  });

  it('Go: main and init are untestable entry points; a short function is only outside the filter', async () => {
    const fns = await classifyDocument('app/app.go', GO);
    assert.equal(byName(fns, 'main').untestable, 'entry-point');
    assert.equal(byName(fns, 'init').untestable, 'entry-point');
    const double = byName(fns, 'Double');
    assert.equal(double.rule, 'min-lines');
    assert.equal(double.untestable, null);
  });

  it('Go: examples under _examples/ and a nested module below the root are untestable; the nested module opened as the root is not', async () => {
    assert.equal(byName(await classifyDocument('_examples/hello/lib.go', GO), 'Double').untestable, 'tool-ignored');
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-targeting-'));
    try {
      fs.writeFileSync(path.join(root, 'go.mod'), 'module example.com/root\n');
      fs.mkdirSync(path.join(root, 'tools', 'gen', 'sub'), { recursive: true });
      fs.writeFileSync(path.join(root, 'tools', 'gen', 'go.mod'), 'module example.com/gen\n');
      const nested = byName(await classifyDocument('tools/gen/sub/lib.go', GO, {}, root), 'Double');
      assert.equal(nested.untestable, 'nested-module');
      assert.equal(nested.nestedProject, 'tools/gen');
      assert.equal(nested.rule, 'tool-ignored', 'counted as tool-ignored by the extraction');
      assert.match(refusalOf(nested, 'tools/gen/sub/lib.go', 'Go'), /tools\/gen\/, a module of its own .*open tools\/gen as a workspace folder/);
      // Without the root nothing is looked for; from the nested module itself the file is its own project's.
      assert.equal(byName(await classifyDocument('tools/gen/sub/lib.go', GO), 'Double').untestable, null);
      assert.equal(byName(await classifyDocument('sub/lib.go', GO, {}, path.join(root, 'tools', 'gen')), 'Double').untestable, null);
      assert.equal(byName(await classifyDocument('pkg/lib.go', GO, {}, root), 'Double').untestable, null);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it("Rust: a binary's fn main is an entry point; the same name in a library or a method is not", async () => {
    const src = 'fn main() {\n    println!("{}", helper(2));\n}\n\nfn helper(n: u32) -> u32 {\n    n + 1\n}\n\nstruct S;\nimpl S {\n    fn main(&self) -> u32 {\n        1\n    }\n}\n';
    for (const bin of ['src/main.rs', 'src/bin/tool.rs', 'src/bin/tool/main.rs', 'crates/cli/src/main.rs']) {
      const fns = await classifyDocument(bin, src);
      assert.equal(fns.find((f) => f.name === 'main' && f.startLine === 1)?.untestable, 'entry-point', bin);
      assert.equal(byName(fns, 'helper').untestable, null, `${bin}: helper`);
      assert.equal(fns.find((f) => f.name === 'main' && f.startLine > 1)?.untestable, null, `${bin}: the method`);
    }
    assert.equal((await classifyDocument('src/lib.rs', src))[0].untestable, null);
    assert.equal((await classifyDocument('examples/demo.rs', src))[0].untestable, 'tool-ignored');
    assert.equal((await classifyDocument('build.rs', src))[0].untestable, 'tool-ignored');
  });

  it('Ruby: bin/, exe/, script/ and examples/ are scripts; lib/ (even lib/x/examples/) is library code', async () => {
    const src = 'def shout(s)\n  s.upcase\nend\n';
    for (const p of ['bin/tool.rb', 'exe/gem.rb', 'script/console.rb', 'examples/demo.rb', 'example/x/demo.rb']) {
      assert.equal((await classifyDocument(p, src))[0].untestable, 'tool-ignored', p);
    }
    for (const p of ['lib/gem.rb', 'lib/gem/examples/loader.rb']) assert.equal((await classifyDocument(p, src))[0].untestable, null, p);
  });

  it('PHP: front controllers and bin/ scripts are untestable; a private method is only outside the filter, an abstract one has no body', async () => {
    const src = '<?php\nfunction route($r) {\n    return $r;\n}\n';
    for (const p of ['public/index.php', 'index.php', 'bin/console.php', 'examples/demo.php']) {
      assert.equal((await classifyDocument(p, src))[0].untestable, 'tool-ignored', p);
    }
    assert.equal((await classifyDocument('src/public/index.php', src))[0].untestable, null);
    const cls = '<?php\nabstract class A {\n    private function hidden($x) {\n        return $x;\n    }\n    abstract protected function todo($x);\n}\n';
    const fns = await classifyDocument('src/A.php', cls);
    assert.deepEqual([byName(fns, 'hidden').rule, byName(fns, 'hidden').untestable], ['php-visibility', null]);
    assert.deepEqual([byName(fns, 'todo').rule, byName(fns, 'todo').untestable], ['php-visibility', 'no-body']);
  });

  it("Julia: a compiled app's julia_main and scripts under scripts/ are untestable", async () => {
    const src = 'function julia_main()::Cint\n    return 0\nend\n\nfunction twice(x)\n    return 2x\nend\n';
    const fns = await classifyDocument('src/App.jl', src);
    assert.equal(byName(fns, 'julia_main').untestable, 'entry-point');
    assert.equal(byName(fns, 'twice').untestable, null);
    assert.equal(byName(await classifyDocument('scripts/run.jl', src), 'twice').untestable, 'tool-ignored');
  });

  it('the refusal says why and what to do; a function outside the filter gets a note, not a refusal', async () => {
    const fns = await classifyDocument('cmd/x/main.go', GO);
    assert.equal(refusalOf(byName(fns, 'main'), 'cmd/x/main.go', 'Go'), "main is a program's entry point: a unit test cannot call it; put the cursor in a function it calls");
    assert.equal(outsideFilterNote(byName(fns, 'main')), null);
    // A benchmark folder's function is left out of the benchmark, but a user may still score it.
    const bench = byName(await classifyDocument('benchmarks/app.go', GO), 'Double');
    assert.equal(bench.rule, 'scaffolding-folder');
    assert.equal(bench.untestable, null);
    assert.match(outsideFilterNote(bench) ?? '', /benchmark, documentation, example and tooling folders/);
    assert.match(outsideFilterNote(byName(fns, 'Double')) ?? '', /^Double is outside the benchmark's filter \(it has 3 lines, fewer than the benchmark's minimum\); it is scored all the same$/);
    assert.equal(refusalOf(byName(fns, 'Double'), 'cmd/x/main.go', 'Go'), '');
  });

  it('lenses: the benchmark filter by default, every testable function with codeLens.functions "all", never an entry point', async () => {
    const fns = await classifyDocument('app/app.go', GO, { minLines: 1 });
    assert.deepEqual(withLens(fns, DEFAULT_ENGINE_SETTINGS).map((f) => f.name), ['Double']);
    const wide = await classifyDocument('app/app.go', GO);
    assert.deepEqual(withLens(wide, { codeLensFunctions: 'focal' }).map((f) => f.name), []);
    assert.deepEqual(withLens(wide, { codeLensFunctions: 'all' }).map((f) => f.name), ['Double']);
    assert.equal(DEFAULT_ENGINE_SETTINGS.codeLensFunctions, 'focal');
    assert.ok(ENGINE_SETTINGS_SCHEMA.required.includes('codeLensFunctions'));
  });
});
