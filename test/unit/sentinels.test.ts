import { strict as assert } from 'node:assert';
import { generateSentinels } from '../../src/engine/mutate/mutants';
import { interleave } from '../../src/engine/mutate/sentinels';
import type { LanguageId } from '../../src/engine/parse/grammars';
import { snippetTask } from '../helpers/mutation-fixtures';

/** The rename sentinel of `name` in `source`, or undefined. */
async function renamed(language: LanguageId, source: string, name: string): Promise<string | undefined> {
  const sentinels = await generateSentinels(await snippetTask(language, source, name), language);
  return sentinels.find((s) => s.kind === 'rename')?.source;
}

describe('sentinel mutants: the renamed local', () => {
  it('go: the first local, every use of it; a struct key of the same name is not a use', async () => {
    const src = 'package p\n\ntype T struct{ n int }\n\nfunc F(a int) T {\n\tn := a + 1 // n is\n\tif n > 2 {\n\t\tn--\n\t}\n\treturn T{n: 0}\n}\n';
    // `T{n: …}` names the field n: renaming n there would not compile, so n is not the one renamed.
    assert.equal(await renamed('go', src, 'F'), src.replace(/\ba\b/g, '_xrt_a'));
    const plain = 'package p\n\nfunc G(a int) int {\n\ttotal := a\n\tfor i := 0; i < a; i++ {\n\t\ttotal += i\n\t}\n\treturn total\n}\n';
    assert.equal(await renamed('go', plain, 'G'), plain.replace(/\btotal\b/g, '_xrt_total'));
  });

  it('rust: a let binding, not a field shorthand or a name inside a format string', async () => {
    const src = 'fn f(a: i32) -> i32 {\n    let mut s = a;\n    s += 1;\n    let t = s * 2;\n    println!("{t}");\n    s + t\n}\n';
    assert.equal(await renamed('rust', src, 'f'), src.replace(/\bs\b/g, '_xrt_s'));
    const shorthand = 'struct P { s: i32 }\nfn g(a: i32) -> P {\n    let s = a;\n    P { s }\n}\n';
    assert.equal(await renamed('rust', shorthand, 'g'), shorthand.replace('g(a: i32)', 'g(_xrt_a: i32)').replace('s = a', 's = _xrt_a'));
  });

  it('php: a local (in strings and heredocs too), never a parameter, a static property, or a function that reads locals by name', async () => {
    const src = '<?php\nclass A {\n    public static $w = 0;\n    public function f($w0) {\n        $w = [$w0];\n        self::$w = 1;\n        $s = "n={$w[0]} $w";\n        return $s;\n    }\n}\n';
    const out = await renamed('php', src, 'f');
    assert.equal(out, src.replace('$w = [$w0]', '$_xrt_w = [$w0]').replace('{$w[0]} $w"', '{$_xrt_w[0]} $_xrt_w"'));
    for (const body of ['return compact("w");', 'return $$n;', 'return get_defined_vars();', 'return "${w}";', "include 'view.php';"]) {
      assert.equal(await renamed('php', `<?php\nfunction g($n) {\n    $w = 1;\n    ${body}\n}\n`, 'g'), undefined, body);
    }
    assert.equal(await renamed('php', '<?php\nfunction h($n) {\n    global $w;\n    $w = $n;\n    return $w;\n}\n', 'h'), undefined, 'global $w names the global');
  });

  it('ruby: a local set before any use, not a method of the same name, nor in a method reading its binding', async () => {
    const src = 'def f(q)\n  w = q + 1\n  self.w\n  w() if false\n  "#{w}!"\n  [1].each { |x| w += x }\n  w\nend\n';
    assert.equal(await renamed('ruby', src, 'f'), src.replace('  w = q', '  _xrt_w = q').replace('#{w}', '#{_xrt_w}').replace('{ |x| w +=', '{ |x| _xrt_w +=').replace('\n  w\nend', '\n  _xrt_w\nend'));
    // `w` is first a method call, then a local: renaming both would change what the call does.
    assert.equal(await renamed('ruby', 'def g(q)\n  puts w\n  w = 2\n  w + q\nend\n', 'g'), undefined);
    assert.equal(await renamed('ruby', 'def h(q)\n  w = 1\n  binding.local_variable_get(:w)\nend\n', 'h'), undefined);
  });

  it('a statement that does nothing: after the body\'s { in Go and Rust, at the end of the def line in Ruby', async () => {
    const code = async (language: LanguageId, source: string, name: string): Promise<string | undefined> =>
      (await generateSentinels(await snippetTask(language, source, name), language)).find((s) => s.kind === 'code')?.source;
    assert.equal(await code('go', 'package p\n\nfunc F(a int) int {\n\treturn a\n}\n', 'F'), 'package p\n\nfunc F(a int) int { defer func() {}();\n\treturn a\n}\n');
    assert.equal(await code('rust', 'fn f(a: i32) -> i32 {\n    a\n}\n', 'f'), 'fn f(a: i32) -> i32 { ::core::hint::black_box(0u8);\n    a\n}\n');
    assert.equal(await code('ruby', 'def f(a, b: 1)\n  a + b\nend\n', 'f'), 'def f(a, b: 1); _xrt_ = nil\n  a + b\nend\n');
    // A signature over two lines would not parse with it; a method reading its locals would see it.
    assert.equal(await code('ruby', 'def g(a,\n      b)\n  a + b\nend\n', 'g'), undefined);
    assert.equal(await code('ruby', 'def h(a)\n  local_variables.size\nend\n', 'h'), undefined);
  });
});

describe('sentinel mutants: their places among the mutants', () => {
  it('keeps the mutants in order, puts every sentinel somewhere, and never all before the first mutant', () => {
    const mutants = ['m1', 'm2', 'm3'];
    for (const pick of [() => 0, (n: number) => n - 1, (n: number) => Math.floor(n / 2)]) {
      const order = interleave(mutants, ['s1', 's2'], pick);
      assert.deepEqual(order.filter((x) => 'mutant' in x).map((x) => ('mutant' in x ? x.mutant : '')), mutants);
      assert.equal(order.filter((x) => 'sentinel' in x).length, 2);
      const lastSentinel = order.map((x) => 'sentinel' in x).lastIndexOf(true);
      assert.ok(order.slice(0, lastSentinel).some((x) => 'mutant' in x), JSON.stringify(order));
    }
    // No mutant (none covered): the sentinels alone still run.
    assert.deepEqual(interleave([], ['s'], () => 0), [{ sentinel: 's' }]);
  });
});
