import { strict as assert } from 'node:assert';
import { byName, functionsOf } from '../helpers/snippets';

describe('language adapters', () => {
  describe('rust', () => {
    const src = [
      'mod inner {',
      '    impl<T: Ord> Stack<T> where T: Clone {',
      '        pub fn push(&mut self, v: T) -> usize { self.len() }',
      '    }',
      '    impl fmt::Display for Stack {',
      '        fn fmt(&self) -> i32 { return 1; }',
      '    }',
      '    pub trait Shape { fn area(&self) -> f64; fn d(&self) -> f64 { 1.0 } }',
      '}',
      'fn tail_if(x: i32) -> i32 {',
      '    let y = 1;',
      '    if x > 0 { y } else { 2 }',
      '}',
      'fn ends_with_semicolon() { foo(); }',
      'fn diverges() -> i32 { panic!("no") }',
      'fn unit() { () }',
      'fn outer() -> i32 { fn nested() -> i32 { 1 } let f = |x: i32| x; f(nested()) }',
      '#[cfg(test)]',
      'mod tests {',
      '    #[test]',
      '    fn t() { assert!(true) }',
      '}',
      '#[tokio::test]',
      'async fn async_test() -> u8 { 1 }',
    ].join('\n');

    it('lists impl, trait default and free functions, not signatures, nested fns or closures', async () => {
      const fns = await functionsOf('rust', src);
      assert.deepEqual(fns.map((f) => f.name), ['push', 'fmt', 'd', 'tail_if', 'ends_with_semicolon', 'diverges', 'unit', 'outer', 't', 'async_test']);
    });

    it('records impl and trait signatures, type names and inline modules', async () => {
      const fns = await functionsOf('rust', src);
      assert.equal(byName(fns, 'push').classSignature, 'impl<T: Ord> Stack<T> where T: Clone');
      assert.equal(byName(fns, 'push').className, 'Stack');
      assert.equal(byName(fns, 'push').scope, 'inner');
      assert.equal(byName(fns, 'fmt').classSignature, 'impl fmt::Display for Stack');
      assert.equal(byName(fns, 'd').classSignature, 'trait Shape');
      assert.equal(byName(fns, 'd').className, 'Shape');
      assert.equal(byName(fns, 'push').signature, 'pub fn push(&mut self, v: T) -> usize');
    });

    it('counts a tail expression as output, but not `;`, `()` or panic!', async () => {
      const fns = await functionsOf('rust', src);
      const out = Object.fromEntries(fns.map((f) => [f.name, f.hasOutput]));
      assert.deepEqual(
        { push: out.push, fmt: out.fmt, d: out.d, tail_if: out.tail_if, semi: out.ends_with_semicolon, panic: out.diverges, unit: out.unit, outer: out.outer },
        { push: true, fmt: true, d: true, tail_if: true, semi: false, panic: false, unit: false, outer: true },
      );
    });

    it('marks #[test], #[tokio::test] and #[cfg(test)] modules as test code', async () => {
      const fns = await functionsOf('rust', src);
      assert.equal(byName(fns, 't').isTestCode, true);
      assert.equal(byName(fns, 'async_test').isTestCode, true);
      assert.equal(byName(fns, 'outer').isTestCode, false);
    });
  });

  describe('go', () => {
    const src = [
      'package stack',
      'func (s *Stack[T]) Push(v T) int { return 1 }',
      'func (s Stack[T]) Len() int { return len(s.items) }',
      'func Map[T any, U any](xs []T, f func(T) U) []U { g := func() {}; g(); return nil }',
      'func Log(msg string) { println(msg) }',
    ].join('\n');

    it('records the receiver type and the package, and finds returns', async () => {
      const fns = await functionsOf('go', src);
      assert.deepEqual(fns.map((f) => f.name), ['Push', 'Len', 'Map', 'Log']);
      assert.equal(byName(fns, 'Push').classSignature, '*Stack[T]');
      assert.equal(byName(fns, 'Push').className, 'Stack');
      assert.equal(byName(fns, 'Len').classSignature, 'Stack[T]');
      assert.equal(byName(fns, 'Map').className, '');
      assert.equal(byName(fns, 'Map').signature, 'func Map[T any, U any](xs []T, f func(T) U) []U');
      assert.ok(fns.every((f) => f.scope === 'stack'));
      assert.equal(byName(fns, 'Log').hasOutput, false);
      assert.equal(byName(fns, 'Map').hasOutput, true);
    });
  });

  describe('php', () => {
    const src = [
      '<?php',
      'namespace App\\Util;',
      'use PHPUnit\\Framework\\TestCase;',
      '#[Attr]',
      'final class X extends Y implements I, J {',
      '  public static function a(int $x): int { return $x; }',
      '  private function b() { return 1; }',
      '  protected function c() { return 1; }',
      '  abstract public function d();',
      '  function e() { $f = function () { return 2; }; }',
      '}',
      'interface Shape extends Base { public function area(): float; }',
      'if (!function_exists("App\\Util\\helper")) { function helper($a) { return $a; } }',
      'class FooTest extends TestCase { public function testA() { return 1; } }',
      'namespace Other { function top() { return new class { public function inner() { return 1; } }; } }',
    ].join('\n');

    it('records namespaces, class signatures and hidden methods', async () => {
      const fns = await functionsOf('php', src);
      assert.deepEqual(fns.map((f) => f.name), ['a', 'b', 'c', 'd', 'e', 'area', 'helper', 'testA', 'top']);
      assert.equal(byName(fns, 'a').classSignature, 'final class X extends Y implements I, J');
      assert.equal(byName(fns, 'a').scope, 'App\\Util');
      assert.equal(byName(fns, 'a').signature, 'public static function a(int $x): int');
      assert.equal(byName(fns, 'area').classSignature, 'interface Shape extends Base');
      assert.equal(byName(fns, 'top').scope, 'Other');
      assert.equal(byName(fns, 'helper').className, '');
      const hidden = Object.fromEntries(fns.map((f) => [f.name, f.isHiddenMethod]));
      assert.deepEqual(hidden, { a: false, b: true, c: true, d: true, e: false, area: true, helper: false, testA: false, top: false });
      assert.equal(byName(fns, 'testA').isTestCode, true);
      assert.equal(byName(fns, 'a').isTestCode, false);
    });
  });

  describe('ruby', () => {
    const src = [
      'module A',
      '  module B',
      '    class X < Y',
      '      def self.z(a)',
      '        a',
      '      end',
      '      class << self',
      '        def w; 1; end',
      '      end',
      '      def foo a, b = 2',
      '        return a',
      '      end',
      '      def quiet',
      '        puts "x"',
      '        nil',
      '      end',
      '      def boom',
      '        raise ArgumentError, "no"',
      '      end',
      '      def safe',
      '        compute',
      '      rescue StandardError',
      '        nil',
      '      end',
      '    end',
      '    included do',
      '      def in_block = 42',
      '    end',
      '  end',
      'end',
      'def top(x)',
      '  def inner; end',
      '  x',
      'end',
    ].join('\n');

    it('lists defs in classes, modules, class << self and blocks, not nested defs', async () => {
      const fns = await functionsOf('ruby', src);
      assert.deepEqual(fns.map((f) => f.name), ['z', 'w', 'foo', 'quiet', 'boom', 'safe', 'in_block', 'top']);
    });

    it('records module nesting, class signature and method kind', async () => {
      const fns = await functionsOf('ruby', src);
      const z = byName(fns, 'z');
      assert.equal(z.scope, 'A::B');
      assert.equal(z.classSignature, 'class X < Y');
      assert.equal(z.extraMetadata?.method_kind, 'singleton');
      assert.equal(z.signature, 'def self.z(a)');
      assert.equal(byName(fns, 'w').extraMetadata?.method_kind, 'singleton');
      assert.equal(byName(fns, 'foo').extraMetadata?.method_kind, 'instance');
      assert.equal(byName(fns, 'foo').signature, 'def foo a, b = 2');
      assert.equal(byName(fns, 'in_block').className, '');
      assert.equal(byName(fns, 'top').scope, '');
    });

    it('counts the last expression as output, but not nil or raise', async () => {
      const fns = await functionsOf('ruby', src);
      const out = Object.fromEntries(fns.map((f) => [f.name, f.hasOutput]));
      assert.deepEqual(out, { z: true, w: true, foo: true, quiet: false, boom: false, safe: true, in_block: true, top: true });
    });
  });

  describe('julia', () => {
    const src = [
      'module Foo',
      'function add(x::Int, y)::Int',
      '    # c',
      '    return x + y',
      'end',
      'sq(x) = x^2',
      'Base.show(io::IO, s::Stack) = print(io, "x")',
      'function Base.push!(s::Stack{T}, x::T) where {T}',
      '    s.x + 1',
      'end',
      'f(x::T) where T<:Real = x',
      'g(x)::Int = 1',
      'function h end',
      'macro m(x) x end',
      '@inline function inl(x)',
      '    inner(y) = y',
      '    nothing',
      'end',
      'function k(x)',
      '    throw(ArgumentError("x"))',
      'end',
      'module Inner',
      'function deep(x)',
      '    x',
      'end',
      'end',
      'end',
    ].join('\n');

    it('lists long and short forms, qualified names, not macros, bodiless or nested functions', async () => {
      const fns = await functionsOf('julia', src);
      assert.deepEqual(fns.map((f) => f.name), ['add', 'sq', 'Base.show', 'Base.push!', 'f', 'g', 'inl', 'k', 'deep']);
      assert.equal(byName(fns, 'Base.show').bareName, 'show');
      assert.equal(byName(fns, 'Base.push!').signature, 'function Base.push!(s::Stack{T}, x::T) where {T}');
      assert.equal(byName(fns, 'sq').signature, 'sq(x)');
      assert.equal(byName(fns, 'add').scope, 'Foo');
      assert.equal(byName(fns, 'deep').scope, 'Foo.Inner');
    });

    it('counts the last expression as output, but not nothing or throw', async () => {
      const fns = await functionsOf('julia', src);
      const out = Object.fromEntries(fns.map((f) => [f.name, f.hasOutput]));
      assert.deepEqual(out, { add: true, sq: true, 'Base.show': true, 'Base.push!': true, f: true, g: true, inl: false, k: false, deep: true });
    });

    it('puts functions of an included file into the package module', async () => {
      const fns = await functionsOf('julia', 'function a(x)\n  x\nend\nmodule Sub\nb(x) = x\nend\n', 'Pkg');
      assert.equal(byName(fns, 'a').scope, 'Pkg');
      assert.equal(byName(fns, 'b').scope, 'Pkg.Sub');
    });
  });
});
