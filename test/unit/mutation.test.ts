import { strict as assert } from 'node:assert';
import { capEvenly, generateMutants, mutationEdits, type Mutant } from '../../src/engine/mutate/mutants';
import { MUTATION_OPERATORS, type MutationEdit, type MutationOperator } from '../../src/engine/mutate/types';
import type { LanguageId } from '../../src/engine/parse/grammars';
import { lineStartOffsets } from '../../src/engine/parse/nodes';
import { parseWithDeadline } from '../../src/engine/parse/parse';
import { fixtureTask } from '../helpers/evaluate';
import { LANGUAGES, snippetTask } from '../helpers/mutation-fixtures';

/**
 * The operator kinds each fixture's focal function has code for (read off the code: Go's Status has no
 * statement that can go, Julia's histogram no `&&`, `||` or `!`; Rust's nested `fn nearly_equal -> bool`
 * has a return value).
 */
const KINDS_IN_FIXTURE: Record<LanguageId, MutationOperator[]> = {
  go: ['arithmetic', 'relational', 'logical', 'constant', 'return-value'],
  rust: ['arithmetic', 'relational', 'logical', 'constant', 'return-value', 'statement-deletion'],
  php: [...MUTATION_OPERATORS],
  ruby: [...MUTATION_OPERATORS],
  julia: ['arithmetic', 'relational', 'constant', 'return-value', 'statement-deletion'],
};

async function snippetEdits(language: LanguageId, source: string, name: string): Promise<MutationEdit[]> {
  return mutationEdits(await snippetTask(language, source, name), language);
}

async function snippetMutants(language: LanguageId, source: string, name: string): Promise<Mutant[]> {
  return generateMutants(await snippetTask(language, source, name), language, { maxMutants: 1000 });
}

async function hasParseError(language: LanguageId, source: string): Promise<boolean> {
  const parsed = await parseWithDeadline(language, source, 10_000);
  if (!('tree' in parsed)) throw new Error('parse timed out');
  try {
    return parsed.tree.rootNode.hasError;
  } finally {
    parsed.tree.delete();
  }
}

/** Offset of a snippet's `nth` (0-based) occurrence of `text`. */
function offsetOf(source: string, text: string, nth = 0): number {
  let at = -1;
  for (let i = 0; i <= nth; i++) {
    at = source.indexOf(text, at + 1);
    if (at < 0) throw new Error(`no occurrence ${nth} of ${text}`);
  }
  return at;
}

function touches(e: MutationEdit, offset: number, length: number): boolean {
  return e.startIndex < offset + length && offset < e.endIndex;
}

function kinds(edits: Array<{ operator: MutationOperator }>): Set<MutationOperator> {
  return new Set(edits.map((e) => e.operator));
}

describe('mutation testing', function () {
  this.timeout(120_000);

  describe('mutants of the fixtures', () => {
    for (const language of LANGUAGES) {
      it(`${language}: every operator kind the focal function has code for, only inside it, each parsing`, async () => {
        const task = await fixtureTask(language);
        const source = task.file_content;
        const { start_line, end_line } = task.function_component;
        const starts = lineStartOffsets(source);
        const from = starts[start_line - 1];
        const to = end_line < starts.length ? starts[end_line] : source.length;
        const originalHasError = await hasParseError(language, source);

        const mutants = await generateMutants(task, language, { maxMutants: 1000 });
        assert.ok(mutants.length > 0, 'some mutants');
        assert.deepEqual([...kinds(mutants)].sort(), [...KINDS_IN_FIXTURE[language]].sort());
        for (const m of mutants) {
          assert.ok(m.line >= start_line && m.line <= end_line, `line ${m.line} in ${start_line}-${end_line}`);
          assert.ok(m.startIndex >= from && m.endIndex <= to, `edit ${m.startIndex}-${m.endIndex} in ${from}-${to}`);
          assert.equal(m.source.slice(0, from), source.slice(0, from), 'nothing before the function changes');
          assert.equal(m.source.slice(m.source.length - (source.length - to)), source.slice(to), 'nothing after the function changes');
          assert.equal(source.slice(m.startIndex, m.endIndex), m.original);
          assert.notEqual(m.source, source);
          if (!originalHasError) assert.equal(await hasParseError(language, m.source), false, `${m.operator} ${m.original} -> ${m.replacement} parses`);
        }
        assert.equal(new Set(mutants.map((m) => m.source)).size, mutants.length, 'no two mutants make the same file');
        assert.equal(new Set(mutants.map((m) => m.id)).size, mutants.length, 'ids are unique');
        const again = await generateMutants(task, language, { maxMutants: 1000 });
        assert.deepEqual(again.map((m) => m.id), mutants.map((m) => m.id), 'same mutants, same ids, same order');
      });

      it(`${language}: a cap keeps every operator kind and covered lines keep only their mutants`, async () => {
        const task = await fixtureTask(language);
        const all = await generateMutants(task, language, { maxMutants: 1000 });
        const present = kinds(all);
        const capped = await generateMutants(task, language, { maxMutants: present.size });
        assert.equal(capped.length, present.size);
        assert.deepEqual(kinds(capped), present, 'one of each kind');
        assert.deepEqual(
          capped.map((m) => m.startIndex),
          [...capped.map((m) => m.startIndex)].sort((a, b) => a - b),
          'in source order',
        );

        const lines = [...new Set(all.map((m) => m.line))];
        const someLines = lines.filter((_, i) => i % 2 === 0);
        const onThem = await generateMutants(task, language, { coveredLines: someLines, maxMutants: 1000 });
        assert.ok(onThem.length > 0 && onThem.length < all.length);
        assert.ok(onThem.every((m) => someLines.includes(m.line)));
        assert.deepEqual(
          onThem.map((m) => m.id),
          all.filter((m) => someLines.includes(m.line)).map((m) => m.id),
        );
      });
    }

    it('capEvenly spreads picks over operators and through each list', () => {
      const items = [
        ...Array.from({ length: 10 }, (_, i) => ({ operator: 'constant' as const, i })),
        ...Array.from({ length: 2 }, (_, i) => ({ operator: 'logical' as const, i: 10 + i })),
      ];
      const picked = capEvenly(items, 6);
      assert.equal(picked.length, 6);
      assert.equal(picked.filter((p) => p.operator === 'logical').length, 2, 'the small group is taken whole');
      const constants = picked.filter((p) => p.operator === 'constant').map((p) => p.i);
      assert.deepEqual(constants, [0, 2, 5, 7], 'spaced through the big group');
    });
  });

  describe('operators by node type, not token text', () => {
    it('rust: `<` in generics, `&` and `*` as references, and macro bodies are left alone', async () => {
      const src = [
        'fn f<T: Ord>(v: &Vec<T>, a: i32, b: i32) -> usize {',
        '    let r = &a;',
        '    let d = *r * b;',
        '    assert!(a < b, "a {}", a + 1);',
        '    if v.len() < 3 { return 1; }',
        '    d as usize',
        '}',
      ].join('\n');
      const edits = await snippetEdits('rust', src, 'f');
      for (const [text, nth] of [['<T', 0], ['<T>', 0], ['&Vec', 0], ['&a', 0], ['*r', 0], ['assert!(a < b, "a {}", a + 1)', 0]] as Array<[string, number]>) {
        const at = offsetOf(src, text, nth);
        assert.deepEqual(edits.filter((e) => touches(e, at, text.length) && e.operator !== 'statement-deletion'), [], `nothing in ${text}`);
      }
      const mul = offsetOf(src, '* b');
      assert.deepEqual(edits.filter((e) => e.startIndex === mul).map((e) => e.replacement), ['/'], 'the multiplication is arithmetic');
      const lt = offsetOf(src, '< 3');
      assert.deepEqual(edits.filter((e) => e.startIndex === lt).map((e) => e.replacement).sort(), ['<=', '>='], 'the comparison is relational');
      const assertStmt = offsetOf(src, 'assert!');
      assert.ok(edits.some((e) => e.operator === 'statement-deletion' && e.startIndex === assertStmt), 'a macro statement can go as a whole');
    });

    it('rust: return values become Default::default() only for std types, tail and `return` alike, not in closures', async () => {
      const src = [
        'enum Kind { A, B }',
        'fn n(x: i32) -> i32 {',
        '    if x > 0 { return x * 2; }',
        '    let c = |y: i32| { return y; };',
        '    c(x) + 1',
        '}',
        'fn k(x: i32) -> Kind { if x > 0 { Kind::A } else { Kind::B } }',
        'fn o(x: i32) -> Option<String> { Some(x.to_string()) }',
      ].join('\n');
      const rv = (es: MutationEdit[]) => es.filter((e) => e.operator === 'return-value').map((e) => `${e.original} -> ${e.replacement}`);
      assert.deepEqual(rv(await snippetEdits('rust', src, 'n')), ['x * 2 -> Default::default()', 'c(x) + 1 -> Default::default()']);
      assert.deepEqual(rv(await snippetEdits('rust', src, 'k')), [], 'a user type may have no Default');
      assert.deepEqual(rv(await snippetEdits('rust', src, 'o')), ['Some(x.to_string()) -> Default::default()']);
    });

    it('go: unary `&` and `*` are not arithmetic; return values become the zero value of their result type', async () => {
      const src = [
        'package p',
        '',
        'type T struct{ n int }',
        '',
        'func F(x int) (int, error) {',
        '\tp := &x',
        '\ty := *p * 2',
        '\tif !(y < 3) {',
        '\t\treturn y, nil',
        '\t}',
        '\treturn 7, nil',
        '}',
        '',
        'func S(ok bool) string { if ok { return "yes" }; return "" }',
        '',
        'func G() T { return T{n: 1} }',
      ].join('\n');
      const edits = await snippetEdits('go', src, 'F');
      assert.deepEqual(edits.filter((e) => touches(e, offsetOf(src, '&x'), 2)), [], 'no edit of &x');
      assert.deepEqual(edits.filter((e) => touches(e, offsetOf(src, '*p'), 2)), [], 'no edit of *p');
      assert.deepEqual(edits.filter((e) => e.startIndex === offsetOf(src, '* 2')).map((e) => `${e.operator} ${e.replacement}`), ['arithmetic /']);
      assert.ok(edits.some((e) => e.operator === 'logical' && e.original === '!(y < 3)' && e.replacement === '(y < 3)'));
      const rv = edits.filter((e) => e.operator === 'return-value').map((e) => `${e.original} -> ${e.replacement}`);
      assert.deepEqual(rv, ['y -> 0', '7 -> 0'], 'the error result is nil already');
      const s = (await snippetEdits('go', src, 'S')).filter((e) => e.operator === 'return-value').map((e) => `${e.original} -> ${e.replacement}`);
      assert.deepEqual(s, ['"yes" -> ""']);
      assert.deepEqual((await snippetEdits('go', src, 'G')).filter((e) => e.operator === 'return-value'), [], 'a struct has no literal zero here');
    });

    it('php: `->`, `=>`, `.` and `??` are not operators to mutate; returns follow the declared type', async () => {
      const src = [
        '<?php',
        'class A {',
        '    private $x;',
        '    public function f(string $s): string',
        '    {',
        '        $m = [\'k\' => $this->x ?? $s];',
        '        return $s . $m[\'k\'];',
        '    }',
        '    public function g(int $n): int { return $n + 1; }',
        '    public function h(int $n): ?A { return $n > 0 ? $this : null; }',
        '    public function i(int $n): A { return $this; }',
        '    public function j($n) { $n = $n - 1; $k = 2; $n++; return $n; }',
        '}',
      ].join('\n');
      const f = await snippetEdits('php', src, 'f');
      assert.deepEqual(f.filter((e) => ['arithmetic', 'logical', 'relational'].includes(e.operator)), []);
      assert.deepEqual(f.filter((e) => e.operator === 'return-value').map((e) => e.replacement), ["''"], 'string -> empty string');
      const rv = async (name: string) => (await snippetEdits('php', src, name)).filter((e) => e.operator === 'return-value').map((e) => e.replacement);
      assert.deepEqual(await rv('g'), ['0']);
      assert.deepEqual(await rv('h'), ['null']);
      assert.deepEqual(await rv('i'), [], 'a class type cannot be null');
      assert.deepEqual(await rv('j'), ['null']);
      const j = await snippetEdits('php', src, 'j');
      const deleted = j.filter((e) => e.operator === 'statement-deletion').map((e) => e.original);
      assert.deepEqual(deleted, ['$n = $n - 1;', '$n++;'], 'a reassignment and an update go, a first assignment stays');
      assert.ok(j.some((e) => e.operator === 'arithmetic' && e.original === '++' && e.replacement === '--'));
    });

    it('ruby: `..`, `<<` and `&.` are left alone; the last expression and `return` values become nil', async () => {
      const src = [
        'class A',
        '  def f(x, items)',
        '    r = 1..x',
        '    items << x',
        '    y = x&.size',
        '    return [] if x > 3',
        '    x = x - 1',
        '    items.map { |i| i * 2 }',
        '  end',
        'end',
      ].join('\n');
      const edits = await snippetEdits('ruby', src, 'f');
      for (const text of ['..', '<<', '&.']) {
        assert.deepEqual(edits.filter((e) => e.original === text), [], `no edit of ${text}`);
      }
      const rv = edits.filter((e) => e.operator === 'return-value').map((e) => `${e.original} -> ${e.replacement}`);
      assert.deepEqual(rv, ['[] -> nil', 'items.map { |i| i * 2 } -> nil']);
      const deleted = edits.filter((e) => e.operator === 'statement-deletion').map((e) => e.original);
      assert.deepEqual(deleted, ['items << x', 'x = x - 1'], 'an append and a reassignment; not the first assignment, not the value');
      assert.ok(edits.some((e) => e.operator === 'relational' && e.original === '>'));
      assert.ok(edits.some((e) => e.operator === 'arithmetic' && e.original === '*' && e.replacement === '/'), 'inside a block too');
    });

    it('julia: operators come from the operator child; `:`, `<:`, `|>` and `!` in names are left alone', async () => {
      const src = [
        'function f(xs::AbstractVector{<:Real}, n::Int)',
        '    r = 1:n',
        '    b = xs .+ 1',
        '    c = xs |> sum',
        '    push!(xs, 2)',
        '    ok = !isempty(xs) && n < 3',
        '    n += 1',
        '    n = n * 2',
        '    b[1] = n',
        '    c',
        'end',
        'g(x)::Int = x - 1',
      ].join('\n');
      const edits = await snippetEdits('julia', src, 'f');
      for (const text of ['<:', ':', '|>', 'push!']) {
        assert.deepEqual(edits.filter((e) => e.original === text || (e.operator !== 'statement-deletion' && touches(e, offsetOf(src, text), text.length) && text !== ':')), [], `no edit of ${text}`);
      }
      assert.deepEqual(edits.filter((e) => e.original === '.+').map((e) => e.replacement), ['.-'], 'broadcast stays broadcast');
      assert.ok(edits.some((e) => e.operator === 'relational' && e.original === '<'), 'binary expressions without an operator field');
      assert.ok(edits.some((e) => e.operator === 'logical' && e.original === '&&'));
      assert.ok(edits.some((e) => e.operator === 'logical' && e.original === '!isempty(xs)' && e.replacement === 'isempty(xs)'));
      assert.ok(edits.some((e) => e.operator === 'arithmetic' && e.original === '+=' && e.replacement === '-='));
      const deleted = edits.filter((e) => e.operator === 'statement-deletion').map((e) => e.original);
      assert.deepEqual(deleted, ['push!(xs, 2)', 'n += 1', 'n = n * 2', 'b[1] = n'], 'effects go; first assignments and the value stay');
      assert.deepEqual(edits.filter((e) => e.operator === 'return-value').map((e) => `${e.original} -> ${e.replacement}`), ['c -> nothing']);
      const g = await snippetEdits('julia', src, 'g');
      assert.deepEqual(g.filter((e) => e.operator === 'return-value').map((e) => `${e.original} -> ${e.replacement}`), ['x - 1 -> 0'], 'a declared Int gives 0');
    });

    it('every snippet mutant parses, and a statement deleted from a brace-less PHP if leaves an empty one', async () => {
      const cases: Array<[LanguageId, string, string]> = [
        ['php', '<?php\nfunction f($a) {\n    if ($a) $a = $a + 1;\n    return $a;\n}\n', 'f'],
        ['go', 'package p\n\nfunc F(a int) int {\n\tfor i := 0; i < a; i++ {\n\t\ta += i\n\t}\n\treturn a\n}\n', 'F'],
        ['ruby', 'def f(a)\n  a += 1 while a < 3\n  a\nend\n', 'f'],
      ];
      for (const [language, src, name] of cases) {
        const mutants = await snippetMutants(language, src, name);
        assert.ok(mutants.length > 0, language);
        for (const m of mutants) assert.equal(await hasParseError(language, m.source), false, `${language}: ${m.original} -> ${m.replacement}`);
      }
      // A brace-less PHP `if` keeps a statement where one is deleted.
      const php = await snippetMutants('php', cases[0][1], 'f');
      assert.ok(php.some((m) => m.operator === 'statement-deletion' && m.replacement === ';'));
    });
  });

});
