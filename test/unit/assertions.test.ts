import * as assert from 'node:assert/strict';
import { adapterFor, LANGUAGE_IDS } from '../../src/engine/languages';
import { hasAssertions, withoutComments } from '../../src/engine/score/assertions';

const rules = (id: Parameters<typeof adapterFor>[0]) => adapterFor(id).assertions;

describe('assertion rules per language (a test without any is a smoke test)', () => {
  it('every language registers its rules', () => {
    for (const id of LANGUAGE_IDS) assert.ok(rules(id).checks.length > 0, id);
  });

  it('Go: t.Error*/t.Fatal*/t.Fail, testify and Gomega are checks; err.Error() and a plain call are not', () => {
    const go = rules('go');
    assert.equal(hasAssertions(go, 'func TestX(t *testing.T) {\n\tif got := F(); got != 2 {\n\t\tt.Errorf("got %d", got)\n\t}\n}'), true);
    assert.equal(hasAssertions(go, 'func TestX(tt *testing.T) { if F() != 1 { tt.Fatal("no") } }'), true);
    assert.equal(hasAssertions(go, 'func TestX(t *testing.T) { t.FailNow() }'), true);
    assert.equal(hasAssertions(go, 'func TestX(t *testing.T) { assert.Equal(t, 1, F()) }'), true);
    assert.equal(hasAssertions(go, 'func TestX(t *testing.T) { require.NoError(t, err) }'), true);
    assert.equal(hasAssertions(go, 'func TestX(t *testing.T) {\n\t_ = F()\n\t_ = err.Error()\n}'), false);
    // A commented-out check is no check; a URL in a string is not a comment.
    assert.equal(hasAssertions(go, 'func TestX(t *testing.T) {\n\t_ = F()\n\t// t.Errorf("later")\n\t/* t.Fatal() */\n}'), false);
    assert.equal(hasAssertions(go, 'func TestX(t *testing.T) { u := "http://x"; if F(u) { t.Error("bad") } }'), true);
  });

  it('Rust: the assert macros, panic! and #[should_panic]; a bare call is not', () => {
    const rust = rules('rust');
    assert.equal(hasAssertions(rust, '#[test]\nfn t() { assert_eq!(f(1), 2); }'), true);
    assert.equal(hasAssertions(rust, '#[test]\nfn t() { assert!(f(1)); }'), true);
    assert.equal(hasAssertions(rust, '#[test]\nfn t() { assert_ne!(f(1), 2); }'), true);
    assert.equal(hasAssertions(rust, '#[test]\n#[should_panic]\nfn t() { f(0); }'), true);
    assert.equal(hasAssertions(rust, '#[test]\nfn t() { if f(1) != 2 { panic!("no") } }'), true);
    assert.equal(hasAssertions(rust, '#[test]\nfn t() { let _ = f(1); // assert_eq!(f(1), 2);\n}'), false);
  });

  it('PHP: $this->assert*, self::assert*, expectException; a bare call is not', () => {
    const php = rules('php');
    assert.equal(hasAssertions(php, 'public function testX(): void { $this->assertSame(2, f(1)); }'), true);
    assert.equal(hasAssertions(php, 'public function testX(): void { self::assertTrue(f(1)); }'), true);
    assert.equal(hasAssertions(php, 'public function testX(): void { $this->expectException(E::class); f(0); }'), true);
    assert.equal(hasAssertions(php, 'public function testX(): void { f(1); # $this->assertTrue(true);\n}'), false);
  });

  it('Ruby: expect(…)/expect {…}, assert*/refute*, must_/wont_, should; a bare call is not', () => {
    const ruby = rules('ruby');
    assert.equal(hasAssertions(ruby, "it 'x' do\n  expect(f(1)).to eq(2)\nend"), true);
    assert.equal(hasAssertions(ruby, "it 'x' do\n  expect { f(0) }.to raise_error(ArgumentError)\nend"), true);
    assert.equal(hasAssertions(ruby, 'def test_x\n  assert_equal 2, f(1)\nend'), true);
    assert.equal(hasAssertions(ruby, 'def test_x\n  _(f(1)).must_equal 2\nend'), true);
    assert.equal(hasAssertions(ruby, 'def test_x\n  f(1).should == 2\nend'), true);
    assert.equal(hasAssertions(ruby, "it 'x' do\n  f(\"#{1}\")\n  # expect(f(1)).to eq(2)\nend"), false);
  });

  it('Julia: @test and @test_throws; @testset alone and @test_skip are not checks', () => {
    const julia = rules('julia');
    assert.equal(hasAssertions(julia, '@testset "x" begin\n    @test f(1) == 2\nend'), true);
    assert.equal(hasAssertions(julia, '@testset "x" begin\n    @test_throws ArgumentError f(0)\nend'), true);
    assert.equal(hasAssertions(julia, '@testset "x" begin\n    f(1)\n    @test_skip f(2) == 3\nend'), false);
    assert.equal(hasAssertions(julia, '@testset "x" begin\n    f(1)\n    #= @test f(1) == 2 =#\nend'), false);
  });

  it('drops comments only where they start a line or follow white space', () => {
    assert.equal(withoutComments(rules('go'), 'a := "http://x" // note\nb'), 'a := "http://x" \nb');
  });
});
