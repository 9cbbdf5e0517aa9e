import { strict as assert } from 'node:assert';
import { extractRepository } from '../../src/engine/extract/extract';
import type { LanguageId } from '../../src/engine/parse/grammars';
import { invocationOf, targetOf } from '../../src/engine/score/invocation';
import type { InvocationResult } from '../../src/engine/score/types';
import type { TaskRecord } from '../../src/engine/tasks/record';
import { fixture } from '../helpers/paths';

const FIXTURE_DIRS: Record<LanguageId, string> = {
  go: 'inventory-go',
  rust: 'geometry-rs',
  php: 'textkit-php',
  ruby: 'bookshelf-rb',
  julia: 'MiniStats.jl',
};

const NEITHER: InvocationResult = { invoked: false, strict: false };
const LOOSE: InvocationResult = { invoked: true, strict: false };
const STRICT: InvocationResult = { invoked: true, strict: true };

/** The fixture's kept tasks, extracted for real, by function name. */
async function tasksOf(language: LanguageId): Promise<Map<string, TaskRecord>> {
  const dir = FIXTURE_DIRS[language];
  const { tasks } = await extractRepository(fixture(dir), {
    languages: [language],
    repository: { name: dir, url: fixture(dir), commit: null },
  });
  return new Map(tasks.map((t) => [t.function_name, t]));
}

function task(tasks: Map<string, TaskRecord>, name: string): TaskRecord {
  const t = tasks.get(name);
  if (!t) throw new Error(`no task ${name} among ${[...tasks.keys()].join(', ')}`);
  return t;
}

/** The same real record with another focal name in the same class (for constructors, absent from the fixtures' kept tasks). */
function sameClass(t: TaskRecord, functionName: string): TaskRecord {
  return { ...t, function_name: functionName, function_component: { ...t.function_component, name: functionName } };
}

const lines = (...l: string[]) => l.join('\n') + '\n';

describe('invocation rate (IR)', () => {
  describe('targetOf', () => {
    it('derives bare names, classes, scopes and method kinds from the records', async () => {
      const julia = await tasksOf('julia');
      const show = targetOf(task(julia, 'Base.show'), 'julia');
      assert.equal(show.bareName, 'show');
      assert.equal(show.scope, 'MiniStats');
      assert.equal(targetOf(task(julia, 'winsorize'), 'julia').scope, 'MiniStats.Inner');
      const generic = targetOf({ ...task(julia, 'histogram'), function_name: 'fit{T}' }, 'julia');
      assert.equal(generic.bareName, 'fit');
      assert.equal(targetOf({ ...task(julia, 'histogram'), function_name: 'Base.:(==)' }, 'julia').bareName, '==');

      const ruby = await tasksOf('ruby');
      const fromRows = targetOf(task(ruby, 'from_rows'), 'ruby');
      assert.deepEqual([fromRows.className, fromRows.scope, fromRows.methodKind], ['Shelf', 'Bookshelf', 'singleton']);

      const rust = await tasksOf('rust');
      assert.equal(targetOf(task(rust, 'classify_triangle'), 'rust').fileModule, 'triangle');
      const parse = targetOf(task(rust, 'parse_length'), 'rust');
      assert.deepEqual([parse.scope, parse.fileModule], ['units', '']);

      const php = await tasksOf('php');
      const top = targetOf(task(php, 'topWords'), 'php');
      assert.deepEqual([top.className, top.scope], ['WordStats', 'Textkit\\Analysis']);
    });
  });

  describe('go', () => {
    let tasks: Map<string, TaskRecord>;
    before(async () => { tasks = await tasksOf('go'); });
    const ir = (name: string, code: string) => invocationOf('go', code, task(tasks, name));

    const restockTest = lines(
      'package inventory',
      '',
      'import "testing"',
      '',
      'func TestRestock(t *testing.T) {',
      '\tcases := []struct {',
      '\t\tname string',
      '\t\tqty  int',
      '\t\twant int',
      '\t}{{"within capacity", 3, 3}, {"capped", 50, 8}}',
      '\tfor _, tc := range cases {',
      '\t\tt.Run(tc.name, func(t *testing.T) {',
      '\t\t\tinv := &Inventory{items: map[string]*Item{}}',
      '\t\t\tinv.Add(Item{SKU: "BK-1", Quantity: 2, Capacity: 10})',
      '\t\t\tgot, err := inv.Restock("BK-1", tc.qty)',
      '\t\t\tif err != nil || got != tc.want {',
      '\t\t\t\tt.Fatalf("Restock(%d) = %d, %v", tc.qty, got, err)',
      '\t\t\t}',
      '\t\t})',
      '\t}',
      '}',
    );

    it('finds a method call inside t.Run closures in a table loop, with the receiver type named (strict)', async () => {
      assert.deepEqual(await ir('Restock', restockTest), STRICT);
    });

    it('finds calls under defer and go, and method expressions on the type', async () => {
      const code = lines(
        'package inventory',
        'import "testing"',
        'func TestDeferred(t *testing.T) {',
        '\tvar inv *Inventory = New()',
        '\tdefer inv.Restock("a", 1)',
        '\tgo (*Inventory).Restock(inv, "b", 2)',
        '}',
      );
      assert.deepEqual(await ir('Restock', code), STRICT);
    });

    it('counts a call through an untyped receiver as invoked but not strict (the type is never named)', async () => {
      const code = lines(
        'package inventory',
        'import "testing"',
        'func TestRestock(t *testing.T) {',
        '\tinv := New()',
        '\tif n, _ := inv.Restock("x", 1); n != 0 {',
        '\t\tt.Fatal(n)',
        '\t}',
        '}',
      );
      assert.deepEqual(await ir('Restock', code), LOOSE);
    });

    it('counts a same-named function of another package as invoked but not strict', async () => {
      const code = lines(
        'package inventory_test',
        'import (',
        '\t"testing"',
        '\t"example.com/inventory"',
        '\t"example.com/warehouse"',
        ')',
        'func TestRestock(t *testing.T) {',
        '\tinv := inventory.New()',
        '\twarehouse.Restock(inv, "x", 1)',
        '}',
      );
      assert.deepEqual(await ir('Restock', code), LOOSE);
    });

    it('accepts a generic receiver type named through the package in an external test package', async () => {
      const code = lines(
        'package inventory_test',
        'import (',
        '\t"testing"',
        '\t"example.com/inventory"',
        ')',
        'func TestPopN(t *testing.T) {',
        '\tvar s inventory.Stack[int]',
        '\ts.Push(1)',
        '\tgot, err := s.PopN(1, true)',
        '\tif err != nil || len(got) != 1 {',
        '\t\tt.Fatal(got, err)',
        '\t}',
        '}',
      );
      assert.deepEqual(await ir('PopN', code), STRICT);
    });

    it('treats a free function: pkg.F from pkg_test and F from the package are strict, other.F is not', async () => {
      const external = lines(
        'package pricing_test',
        'import (',
        '\t"testing"',
        '\t"example.com/inventory/pricing"',
        ')',
        'func TestQuoteOrder(t *testing.T) {',
        '\tq, err := pricing.QuoteOrder(250, 10, pricing.Tier(1), 700)',
        '\tif err != nil { t.Fatal(err) }',
        '\t_ = q',
        '}',
      );
      assert.deepEqual(await ir('QuoteOrder', external), STRICT);
      const internal = external.replace('package pricing_test', 'package pricing').replace('pricing.QuoteOrder', 'QuoteOrder');
      assert.deepEqual(await ir('QuoteOrder', internal), STRICT);
      const other = external.replace('pricing.QuoteOrder', 'billing.QuoteOrder').replace('"example.com/inventory/pricing"', '"example.com/inventory/pricing"\n\t"example.com/billing"');
      assert.deepEqual(await ir('QuoteOrder', other), LOOSE);
    });

    it('recognises explicitly instantiated generic calls F[int](x)', async () => {
      const code = lines('package pricing', 'import "testing"', 'func TestQ(t *testing.T) {', '\t_, _ = QuoteOrder[int](1, 2, 0, 0)', '}');
      assert.deepEqual(await ir('QuoteOrder', code), STRICT);
    });

    it('says neither when the test never calls the function, only mentions it', async () => {
      const code = lines(
        'package inventory',
        'import "testing"',
        'func TestNoCall(t *testing.T) {',
        '\tinv := &Inventory{}',
        '\tRestock := "name only"',
        '\tinv.Add(Item{SKU: Restock})',
        '\tt.Log("Restock is not called here")',
        '}',
      );
      assert.deepEqual(await ir('Restock', code), NEITHER);
    });

    it('says neither for a test that does not parse, even if it calls the function', async () => {
      const broken = restockTest.replace('func TestRestock(t *testing.T) {', 'func TestRestock(t *testing.T {');
      assert.deepEqual(await ir('Restock', broken), NEITHER);
    });
  });

  describe('rust', () => {
    let tasks: Map<string, TaskRecord>;
    before(async () => { tasks = await tasksOf('rust'); });
    const ir = (name: string, code: string) => invocationOf('rust', code, task(tasks, name));

    it('finds a method call inside assert_eq! (a token tree), with the type named (strict)', async () => {
      const code = lines(
        '#[cfg(test)]',
        'mod tests {',
        '    use super::*;',
        '',
        '    #[test]',
        '    fn overlapping_intervals() {',
        '        let a = Interval::new(1, 5);',
        '        let b = Interval::new(3, 8);',
        '        assert_eq!(a.relation(&b), Relation::Overlapping);',
        '    }',
        '}',
      );
      assert.deepEqual(await ir('relation', code), STRICT);
    });

    it('finds Type::m(x), turbofish and nested macro calls', async () => {
      const scoped = lines('#[test]', 'fn t() {', '    let r = Interval::<i32>::relation(&x, &y);', '}');
      assert.deepEqual(await ir('relation', scoped), STRICT);
      const turbofish = lines('#[test]', 'fn t() {', '    assert!(vec![p.relation::<i32>(&q)].len() == 1);', '    let _: Interval<i32> = p;', '}');
      assert.deepEqual(await ir('relation', turbofish), STRICT);
    });

    it('counts a same-named method of another type as invoked but not strict', async () => {
      const code = lines(
        '#[cfg(test)]',
        'mod tests {',
        '    use super::*;',
        '    #[test]',
        '    fn compares_ranges() {',
        '        let r = Range::new(1, 2);',
        '        assert_eq!(Range::relation(&r, &r), 0);',
        '        assert!(r.relation(&r) == 0);',
        '    }',
        '}',
      );
      assert.deepEqual(await ir('relation', code), LOOSE);
    });

    it('accepts <Type as Trait>::m and x.m for a trait method when the type is named', async () => {
      const code = lines('#[test]', 'fn t() {', '    let p = Polygon::new(vec![]);', '    assert!(<Polygon as Shape>::describe(&p).contains("polygon"));', '}');
      assert.deepEqual(await ir('describe', code), STRICT);
      const traitPath = lines('#[test]', 'fn t() {', '    let s = make();', '    assert_eq!(Shape::describe(&s), "x");', '}');
      assert.deepEqual(await ir('describe', traitPath), LOOSE);
    });

    it('treats a free function by its module: units::f and use super::units::* are strict, other::f is not', async () => {
      const qualified = lines(
        '#[cfg(test)]',
        'mod tests {',
        '    use super::*;',
        '    #[test]',
        '    fn parses_centimetres() {',
        '        assert_eq!(units::parse_length("12.5cm"), Ok(125.0));',
        '        assert!(crate::units::parse_length("").is_err());',
        '    }',
        '}',
      );
      assert.deepEqual(await ir('parse_length', qualified), STRICT);
      const imported = lines('use super::units::*;', '#[test]', 'fn t() {', '    assert_eq!(parse_length("3 in"), Ok(76.2));', '}');
      assert.deepEqual(await ir('parse_length', imported), STRICT);
      const other = lines('#[test]', 'fn t() {', '    assert!(imperial::parse_length("3 in").is_ok());', '}');
      assert.deepEqual(await ir('parse_length', other), LOOSE);
    });

    it('accepts a file-level function unqualified, via super:: or its file module, not another module', async () => {
      const code = (call: string) => lines('#[cfg(test)]', 'mod tests {', '    use super::*;', '    #[test]', '    fn right() {', `        assert_eq!(${call}(3.0, 4.0, 5.0), TriangleKind::Right);`, '    }', '}');
      assert.deepEqual(await ir('classify_triangle', code('classify_triangle')), STRICT);
      assert.deepEqual(await ir('classify_triangle', code('super::classify_triangle')), STRICT);
      assert.deepEqual(await ir('classify_triangle', code('crate::triangle::classify_triangle')), STRICT);
      assert.deepEqual(await ir('classify_triangle', code('shapes::classify_triangle')), LOOSE);
    });

    it('says neither when the name appears only as a value, a string or a definition', async () => {
      const code = lines(
        '#[test]',
        'fn t() {',
        '    let classify_triangle = 3;',
        '    let f = super::classify_triangle;',
        '    assert_eq!(classify_triangle, 3, "classify_triangle(1.0, 1.0, 1.0)");',
        '}',
      );
      assert.deepEqual(await ir('classify_triangle', code), NEITHER);
    });

    it('says neither for a test that does not parse (an ERROR node, or only a MISSING one)', async () => {
      const unclosed = lines('#[test]', 'fn t() {', '    assert_eq!(classify_triangle(3.0, 4.0, 5.0), TriangleKind::Right);', '');
      assert.deepEqual(await ir('classify_triangle', unclosed), NEITHER);
      const missingSemicolon = lines('#[test]', 'fn t() {', '    let k = classify_triangle(3.0, 4.0, 5.0)', '    assert_eq!(k, TriangleKind::Right);', '}');
      assert.deepEqual(await ir('classify_triangle', missingSemicolon), NEITHER);
      assert.deepEqual(await ir('classify_triangle', missingSemicolon.replace('5.0)\n', '5.0);\n')), STRICT, 'the same test, fixed');
    });

    it('reads qualified paths inside macro token trees: Type::<T>::m and <Type as Trait>::m', async () => {
      const code = (path: string) => lines('#[test]', 'fn t() {', `    assert_eq!(${path}::relation(&a, &b), Relation::Equal);`, '}');
      assert.deepEqual(await ir('relation', code('Interval::<i32>')), STRICT);
      assert.deepEqual(await ir('relation', code('<Interval<i32> as Related>')), STRICT);
      assert.deepEqual(await ir('relation', code('geometry::Range::<i32>')), LOOSE);
    });
  });

  describe('php', () => {
    let tasks: Map<string, TaskRecord>;
    before(async () => { tasks = await tasksOf('php'); });
    const ir = (name: string, code: string, t?: TaskRecord) => invocationOf('php', code, t ?? task(tasks, name));

    const topWordsTest = lines(
      '<?php',
      '',
      'declare(strict_types=1);',
      '',
      'namespace Textkit\\Tests\\Analysis;',
      '',
      'use PHPUnit\\Framework\\TestCase;',
      'use Textkit\\Analysis\\WordStats;',
      '',
      'final class WordStatsTest extends TestCase',
      '{',
      '    private WordStats $stats;',
      '',
      '    protected function setUp(): void',
      '    {',
      '        $this->stats = new WordStats();',
      '    }',
      '',
      '    public function testTopWordsRanksByFrequency(): void',
      '    {',
      "        $this->assertSame('the, cat', $this->stats->topWords('the cat the cat the', 2));",
      '    }',
      '}',
    );

    it('finds $obj->m() with the class named through use + new (strict)', async () => {
      assert.deepEqual(await ir('topWords', topWordsTest), STRICT);
    });

    it('finds $obj?->m() and Cls::m() for a static method', async () => {
      const code = topWordsTest.replace("$this->stats->topWords('the cat the cat the', 2)", "WordStats::frequencies('a b a')['a'] . $this->stats?->frequencies('x')");
      assert.deepEqual(await ir('frequencies', code), STRICT);
    });

    it('counts a same-named method of another class as invoked but not strict', async () => {
      const code = topWordsTest
        .replace('use Textkit\\Analysis\\WordStats;', 'use Textkit\\Legacy\\WordStats;')
        .replace("$this->stats->topWords('the cat the cat the', 2)", "WordStats::topWords('x')");
      assert.deepEqual(await ir('topWords', code), LOOSE);
    });

    it('resolves free functions: use function and \\Ns\\f are strict, a global same-named function is not', async () => {
      const withUse = lines(
        '<?php',
        'namespace Textkit\\Tests;',
        'use PHPUnit\\Framework\\TestCase;',
        'use function Textkit\\wrap_text;',
        'final class WrapTextTest extends TestCase',
        '{',
        '    public function testWraps(): void',
        '    {',
        "        $this->assertSame(\"ab\\ncd\", wrap_text('ab cd', 2));",
        '    }',
        '}',
      );
      assert.deepEqual(await ir('wrap_text', withUse), STRICT);
      const qualified = withUse.replace('use function Textkit\\wrap_text;\n', '').replace('wrap_text(', '\\Textkit\\wrap_text(');
      assert.deepEqual(await ir('wrap_text', qualified), STRICT);
      const sameNamespace = withUse.replace('namespace Textkit\\Tests;', 'namespace Textkit;').replace('use function Textkit\\wrap_text;\n', '');
      assert.deepEqual(await ir('wrap_text', sameNamespace), STRICT);
      const unresolved = withUse.replace('use function Textkit\\wrap_text;\n', '');
      assert.deepEqual(await ir('wrap_text', unresolved), LOOSE);
    });

    it('does not count callables: strings, arrays and first-class callable syntax', async () => {
      const code = lines(
        '<?php',
        'use function Textkit\\wrap_text;',
        'final class CallableTest extends \\PHPUnit\\Framework\\TestCase',
        '{',
        '    public function testCallables(): void',
        '    {',
        "        $lines = array_map('Textkit\\\\wrap_text', ['a b']);",
        '        $f = wrap_text(...);',
        "        $g = [new \\Textkit\\Slugger(), 'slugify'];",
        '        $this->assertCount(1, $lines);',
        '    }',
        '}',
      );
      assert.deepEqual(await ir('wrap_text', code), NEITHER);
      assert.deepEqual(await ir('slugify', code), NEITHER);
    });

    it('finds a trait method through an anonymous class that uses the trait', async () => {
      const code = lines(
        '<?php',
        'use PHPUnit\\Framework\\TestCase;',
        'use Textkit\\Analysis\\CaseConversion;',
        'final class CaseConversionTest extends TestCase',
        '{',
        '    public function testSnakeCase(): void',
        '    {',
        '        $subject = new class { use CaseConversion; };',
        "        $this->assertSame('http_server', $subject->toSnakeCase('HTTPServer'));",
        '    }',
        '}',
      );
      assert.deepEqual(await ir('toSnakeCase', code), STRICT);
    });

    it('takes new Cls(...) as a call of __construct, strict only for the focal class', async () => {
      const ctor = sameClass(task(tasks, 'slugify'), '__construct');
      const code = lines(
        '<?php',
        'namespace Textkit\\Tests;',
        'use Textkit\\Slugger;',
        'final class SluggerTest extends \\PHPUnit\\Framework\\TestCase',
        '{',
        '    public function testSeparator(): void',
        '    {',
        "        $this->assertSame('a_b', (new Slugger('_'))->slugify('A b'));",
        '    }',
        '}',
      );
      assert.deepEqual(await ir('', code, ctor), STRICT);
      assert.deepEqual(await ir('', code.replace('use Textkit\\Slugger;', 'use Vendor\\Slugger;'), ctor), LOOSE);
      assert.deepEqual(await ir('', code.replace("(new Slugger('_'))", 'Slugger::make()'), ctor), NEITHER);
    });

    it('says neither for a test that does not parse', async () => {
      const broken = topWordsTest.replace("$this->stats->topWords('the cat the cat the', 2));", "$this->stats->topWords('the cat the cat the', 2);");
      assert.deepEqual(await ir('topWords', broken), NEITHER);
    });
  });

  describe('ruby', () => {
    let tasks: Map<string, TaskRecord>;
    before(async () => { tasks = await tasksOf('ruby'); });
    const ir = (name: string, code: string, t?: TaskRecord) => invocationOf('ruby', code, t ?? task(tasks, name));

    const searchSpec = lines(
      '# frozen_string_literal: true',
      '',
      'require "spec_helper"',
      '',
      'RSpec.describe Bookshelf::Catalog do',
      '  let(:ruby_book) { Bookshelf::Book.new(isbn: "1", title: "Eloquent Ruby", author: "Olsen", year: 2011) }',
      '  subject(:catalog) { described_class.new([ruby_book]) }',
      '',
      '  describe "#search" do',
      '    it "ranks title words first" do',
      '      expect(catalog.search("ruby", limit: 1)).to eq([ruby_book])',
      '    end',
      '  end',
      'end',
    );

    it('finds o.m(x) with the class named by RSpec.describe (strict)', async () => {
      assert.deepEqual(await ir('search', searchSpec), STRICT);
    });

    it('finds o.m x without parentheses and o&.m', async () => {
      const code = lines('require "bookshelf"', 'describe "catalog" do', '  it "searches" do', '    c = Bookshelf::Catalog.new', '    c&.search "x"', '    expect(c.search "y").to be_empty', '  end', 'end');
      assert.deepEqual(await ir('search', code), STRICT);
    });

    it('counts a same-named method of another class as invoked but not strict', async () => {
      const code = searchSpec.replace('RSpec.describe Bookshelf::Catalog do', 'RSpec.describe Bookshelf::Index do').replace('Bookshelf::Book.new', 'double');
      assert.deepEqual(await ir('search', code), LOOSE);
      const onClass = lines('RSpec.describe "search" do', '  it "works" do', '    Bookshelf::Catalog.search("x")', '  end', 'end');
      assert.deepEqual(await ir('search', onClass), LOOSE, 'an instance method called on the class constant');
    });

    it('tells a bare method call from a local variable, a parameter and a let of the same name', async () => {
      const bare = lines('RSpec.describe Bookshelf::Catalog do', '  it "calls search bare" do', '    expect(search).to be_nil', '  end', 'end');
      assert.deepEqual(await ir('search', bare), LOOSE);
      const local = lines('RSpec.describe Bookshelf::Catalog do', '  it "reads a local" do', '    search = [1]', '    expect(search).to eq([1])', '  end', '  it "reads a param" do', '    [1].each { |search| expect(search).to eq(1) }', '  end', 'end');
      assert.deepEqual(await ir('search', local), NEITHER);
      const letHelper = lines('RSpec.describe Bookshelf::Catalog do', '  let(:search) { [] }', '  it "reads the let" do', '    expect(search).to eq([])', '  end', 'end');
      assert.deepEqual(await ir('search', letHelper), NEITHER);
    });

    it('treats singleton methods by the receiver: Cls.m and described_class.m are strict, Other.m is not', async () => {
      const code = lines(
        'RSpec.describe Bookshelf::Shelf do',
        '  describe ".from_rows" do',
        '    it "skips comments" do',
        '      shelves = described_class.from_rows(["# x", "A1 | Fiction | 30"])',
        '      expect(shelves.keys).to eq(["A1"])',
        '    end',
        '  end',
        'end',
      );
      assert.deepEqual(await ir('from_rows', code), STRICT);
      assert.deepEqual(await ir('from_rows', code.replace('described_class.from_rows', 'Shelf.from_rows')), STRICT);
      assert.deepEqual(await ir('from_rows', code.replace('described_class.from_rows', 'Bookshelf::Rack.from_rows')), LOOSE);
      assert.deepEqual(await ir('from_rows', code.replace('described_class.from_rows', 'Other::Shelf.from_rows')), LOOSE);
      assert.deepEqual(await ir('from_rows', code.replace('described_class.from_rows', 'Bookshelf::Shelf.new.from_rows')), LOOSE);
    });

    it('finds predicate and module_function methods through the module constant', async () => {
      const code = lines(
        'RSpec.describe Bookshelf::Util do',
        '  it "validates ISBN-10" do',
        '    expect(Bookshelf::Util.valid_isbn?("0306406152")).to be(true)',
        '  end',
        '  it "charges staff nothing" do',
        '    expect(Bookshelf::Util.late_fee(5, :staff)).to eq(0)',
        '  end',
        'end',
      );
      assert.deepEqual(await ir('valid_isbn?', code), STRICT);
      assert.deepEqual(await ir('late_fee', code), STRICT);
      assert.deepEqual(await ir('late_fee', code.replace('Bookshelf::Util.late_fee', 'Fees.late_fee')), LOOSE);
    });

    it('recognises operator methods: ==, <=>, +, [] and << when the focal name is the operator', async () => {
      const base = task(tasks, 'search');
      const code = lines(
        'RSpec.describe Bookshelf::Catalog do',
        '  it "uses operators" do',
        '    a = Bookshelf::Catalog.new',
        '    b = Bookshelf::Catalog.new',
        '    expect(a == b).to be(true)',
        '    expect(a <=> b).to eq(0)',
        '    c = a + b',
        '    expect(a["1"]).to be_nil',
        '    a << c',
        '  end',
        'end',
      );
      for (const op of ['==', '<=>', '+', '[]', '<<']) {
        assert.deepEqual(await ir('', code, sameClass(base, op)), STRICT, op);
      }
      assert.deepEqual(await ir('', code, sameClass(base, '-')), NEITHER);
    });

    it('takes Cls.new as a call of initialize', async () => {
      const ctor = sameClass(task(tasks, 'search'), 'initialize');
      assert.deepEqual(await ir('', searchSpec, ctor), STRICT); // described_class.new inside describe Bookshelf::Catalog
      const other = lines('it "builds" do', '  Library::Catalog.new([])', 'end');
      assert.deepEqual(await ir('', other, ctor), LOOSE);
      assert.deepEqual(await ir('', lines('it "x" do', '  Bookshelf::Shelf.new(1)', 'end'), ctor), NEITHER);
    });

    it('says neither for a test that does not parse', async () => {
      const broken = searchSpec.replace('  describe "#search" do\n', '  describe "#search" do\n    it "x" do\n');
      assert.deepEqual(await ir('search', broken), NEITHER);
    });
  });

  describe('julia', () => {
    let tasks: Map<string, TaskRecord>;
    before(async () => { tasks = await tasksOf('julia'); });
    const ir = (name: string, code: string) => invocationOf('julia', code, task(tasks, name));

    const winsorizeTest = lines(
      'using Test',
      'using MiniStats',
      '',
      '@testset "winsorize" begin',
      '    xs = [1.0, 2.0, 3.0, 100.0]',
      '    @test winsorize(xs, 0.0, 0.75) == [1.0, 2.0, 3.0, 3.0]',
      '    @test_throws ArgumentError winsorize(xs, 0.9, 0.1)',
      'end',
    );

    it('finds an unqualified call inside @test (strict: unqualified counts)', async () => {
      assert.deepEqual(await ir('winsorize', winsorizeTest), STRICT);
    });

    it('finds Mod.f, broadcasting, pipes, do-blocks, keyword arguments and splats', async () => {
      const forms = [
        '@test MiniStats.Inner.winsorize(xs, 0.0, 1.0) == xs',
        '@test Inner.winsorize(xs...) == xs',
        'ys = winsorize.(Ref(xs), 0.1, 0.9)',
        'zs = xs |> winsorize',
        'ws = winsorize(xs, 0.1, 0.9) do x\n        x\n    end',
      ];
      for (const form of forms) {
        const code = lines('using Test, MiniStats', '@testset "forms" begin', '    xs = [1.0, 2.0]', `    ${form}`, 'end');
        assert.deepEqual(await ir('winsorize', code), STRICT, form);
      }
      const kw = lines('using Test, MiniStats', '@testset "h" begin', '    h = histogram([1, 2, 3], 2; closed = :left)', '    @test h isa Histogram', 'end');
      assert.deepEqual(await ir('histogram', kw), STRICT);
    });

    it('counts a qualified call into another module as invoked but not strict', async () => {
      const code = winsorizeTest.replace(/winsorize\(/g, 'StatsBase.winsorize(');
      assert.deepEqual(await ir('winsorize', code), LOOSE);
    });

    it('takes Base.show as called by show(io, x) or Base.show(io, x), not by another module\'s show', async () => {
      const code = (call: string) => lines('using Test, MiniStats', '@testset "show" begin', '    io = IOBuffer()', `    ${call}(io, histogram([1.0, 2.0], 2))`, '    @test occursin("Histogram", String(take!(io)))', 'end');
      assert.deepEqual(await ir('Base.show', code('show')), STRICT);
      assert.deepEqual(await ir('Base.show', code('Base.show')), STRICT);
      assert.deepEqual(await ir('Base.show', code('Plots.show')), LOOSE);
      assert.deepEqual(await ir('Base.show', code('print')), NEITHER);
    });

    it('says neither when the function is only passed as a value', async () => {
      const code = lines('using Test, MiniStats', '@testset "t" begin', '    f = trimmed_mean', '    @test map(trimmed_mean, [[1.0]], [0.1]) == [1.0]', 'end');
      assert.deepEqual(await ir('trimmed_mean', code), NEITHER);
    });

    it('says neither for a test that does not parse', async () => {
      const broken = winsorizeTest.replace(/end\n$/, '');
      assert.deepEqual(await ir('winsorize', broken), NEITHER);
    });
  });
});
