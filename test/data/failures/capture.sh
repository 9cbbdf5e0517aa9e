#!/usr/bin/env bash
# Captures the failure logs under test/data/failures/<lang>/ from the REAL tools.
#
# Each case copies a fixture to a throwaway sandbox S under $TMPDIR (never the project tree), places
# one deliberately bad test as docs/execution.md says, runs the compile and test phases with the
# commands and environment of docs/execution.md, stores the output of the phase the case is about
# as <id>.log (the absolute sandbox path is kept as the tool printed it) and writes <id>.how.txt
# (the exact commands, their exit codes, and the test code). The sandbox is deleted afterwards.
#
# usage: test/data/failures/capture.sh [lang [id]]    (from the repository root; no argument = all)
# needs: go, cargo + llvm (only for the test phase), php + phpunit + pcov, ruby + rspec, node, jq.
set -u
ROOT="$(cd "$(dirname "$0")/../../.." && pwd)"
OUT="$ROOT/test/data/failures"
ONLY_LANG="${1:-}"
ONLY_ID="${2:-}"

want() { [[ -z "$ONLY_LANG" || "$ONLY_LANG" == "$1" ]] && [[ -z "$ONLY_ID" || "$ONLY_ID" == "$2" ]]; }
short_id() { printf '%s' "$1" | sha256sum | cut -c1-12; }
new_sandbox() { local s; s="$(mktemp -d "${TMPDIR:-/tmp}/xrt-fail-$1-XXXXXX")"; cp -r "$ROOT/test/fixtures/$2/." "$s/"; rm -rf "$s/target" "$s/.xrt"; mkdir -p "$s/.xrt/home" "$s/.xrt/tmp"; echo "$s"; }

# run <logfile> <cwd> <env...> -- <argv...>: runs one phase, output (stdout+stderr) to logfile,
# appends the command line and exit code to $HOW.
run() {
  local log="$1" cwd="$2"; shift 2
  local envs=()
  while [[ "$1" != "--" ]]; do envs+=("$1"); shift; done
  shift
  (cd "$cwd" && env -i PATH="$PATH" "${envs[@]}" "$@") >"$log" 2>&1
  local rc=$?
  {
    echo "\$ cd $cwd && env -i PATH=\$PATH $(printf '%q ' "${envs[@]}" "$@")"
    echo "exit code: $rc"
    echo
  } >>"$HOW"
  return $rc
}

# begin <lang> <id> <phase of the stored log> <fixture> <test code>
begin() {
  LANG_="$1"; ID="$2"; KEEP="$3"; FIXTURE="$4"; CODE="$5"
  mkdir -p "$OUT/$LANG_"
  HOW="$OUT/$LANG_/$ID.how.txt"
  {
    echo "Captured from the real tool by: test/data/failures/capture.sh $LANG_ $ID"
    echo "Fixture: test/fixtures/$FIXTURE, copied to a throwaway sandbox S (path below)."
    echo "Stored log ($ID.log): the output of the $KEEP phase."
    echo "Tool versions: $(tool_version "$LANG_")"
    echo
    echo "Commands, in order (docs/execution.md):"
  } >"$HOW"
  S="$(new_sandbox "$LANG_" "$FIXTURE")"
  XID="$(short_id "$CODE")"
  COMPILE_LOG="$S/.xrt/compile.log"; TEST_LOG="$S/.xrt/test.log"
}

finish() {
  local src="$COMPILE_LOG"; [[ "$KEEP" == test ]] && src="$TEST_LOG"
  cp "$src" "$OUT/$LANG_/$ID.log"
  { echo "Test code (as generated, before placement):"; echo '-----'; printf '%s\n' "$CODE"; echo '-----'; } >>"$HOW"
  rm -rf "$S"
  echo "captured $LANG_/$ID"
}

tool_version() {
  case "$1" in
    go) go version ;;
    rust) echo "$(rustc --version), $(cargo --version)" ;;
    php) echo "$(php -r 'echo PHP_VERSION;'), $(phpunit --version | head -1)" ;;
    ruby) echo "$(ruby --version), rspec $(rspec --version | tr '\n' ' ')" ;;
  esac
}

# ---------------------------------------------------------------- Go
go_case() { # id phase code
  want go "$1" || return 0
  begin go "$1" "$2" inventory-go "$3"
  printf '%s\n' "$CODE" >"$S/xrepotest_${XID}_test.go"
  local names; names="$(grep -oE '^func (Test[A-Za-z0-9_]*)' <<<"$CODE" | cut -d' ' -f2 | paste -sd'|')"
  local envs=(HOME="$S/.xrt/home" TMPDIR="$S/.xrt/tmp" LANG=C.UTF-8 GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local GOCACHE="$S/.xrt/gocache")
  if run "$COMPILE_LOG" "$S" "${envs[@]}" -- go test -c -o "$S/.xrt/pkg.test" ./.; then
    run "$TEST_LOG" "$S" "${envs[@]}" -- go test -count=1 -json -run "^($names)\$" -covermode=count -coverprofile="$S/.xrt/cover.out" ./.
  fi
  finish
}

go_case go-undefined compile 'package inventory

import "testing"

func TestNewManager(t *testing.T) {
	m := NewInventoryManager()
	if m == nil {
		t.Fatal("nil manager")
	}
}'

go_case go-no-field-or-method compile 'package inventory

import "testing"

func TestWeight(t *testing.T) {
	it := Item{SKU: "BK-1", Quantity: 3}
	if it.Weight() != 0 {
		t.Fatal("weight")
	}
}'

go_case go-missing-module compile 'package inventory

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestStatusOk(t *testing.T) {
	it := Item{SKU: "BK-1", Quantity: 5}
	assert.Equal(t, "ok", it.Status(1))
}'

go_case go-not-in-std compile 'package inventory

import (
	"testing"
	"testing/assert"
)

func TestStatusOk(t *testing.T) {
	it := Item{SKU: "BK-1", Quantity: 5}
	assert.Equal(t, "ok", it.Status(1))
}'

go_case go-argument-count compile 'package inventory

import "testing"

func TestStatusNoDay(t *testing.T) {
	it := Item{SKU: "BK-1", Quantity: 5}
	if it.Status() != "ok" {
		t.Fatal("status")
	}
}'

go_case go-assignment-mismatch compile 'package inventory

import "testing"

func TestRestockSingleValue(t *testing.T) {
	inv := New()
	inv.Add(Item{SKU: "BK-1", Quantity: 1})
	n := inv.Restock("BK-1", 2)
	if n != 3 {
		t.Fatal(n)
	}
}'

go_case go-cannot-use compile 'package inventory

import "testing"

func TestStatusStringDay(t *testing.T) {
	it := Item{SKU: "BK-1", Quantity: 5}
	if it.Status("monday") != "ok" {
		t.Fatal("status")
	}
}'

go_case go-mismatched-types compile 'package inventory

import "testing"

func TestHalfStock(t *testing.T) {
	it := Item{SKU: "BK-1", Quantity: 5}
	half := 0.5
	if it.Quantity*half != 2.5 {
		t.Fatal("half")
	}
}'

go_case go-invalid-operation compile 'package inventory

import "testing"

func TestNotQuantity(t *testing.T) {
	it := Item{SKU: "BK-1", Quantity: 5}
	if !it.Quantity {
		t.Fatal("quantity")
	}
}'

go_case go-invalid-operation.cannot-index compile 'package inventory

import "testing"

func TestStatusIndex(t *testing.T) {
	it := Item{SKU: "BK-1", Quantity: 5}
	if it.Quantity[0] != 5 {
		t.Fatal("index")
	}
}'

go_case go-syntax-error compile 'package inventory

import "testing"

func TestStatus(t *testing.T) {
	it := Item{SKU: "BK-1", Quantity: 5}
	if it.Status(1) != "ok" {
		t.Fatal("status")
	}
'

go_case fallback-unused-variable compile 'package inventory

import "testing"

func TestStatusUnused(t *testing.T) {
	it := Item{SKU: "BK-1", Quantity: 5}
	status := it.Status(1)
}'

go_case go-nil-pointer test 'package inventory

import "testing"

func TestLookupNilInventory(t *testing.T) {
	var inv *Inventory
	inv.Add(Item{SKU: "BK-1", Quantity: 1})
}'

go_case go-index-out-of-range test 'package inventory

import "testing"

func TestLogFirstEntry(t *testing.T) {
	inv := New()
	if inv.Log()[0] == "" {
		t.Fatal("empty log entry")
	}
}'

go_case go-interface-conversion test 'package inventory

import "testing"

func TestStatusViaInterface(t *testing.T) {
	it := Item{SKU: "BK-1", Quantity: 5}
	var v interface{} = it.Status(1)
	if v.(int) != 0 {
		t.Fatal("status")
	}
}'

go_case go-runtime-error test 'package inventory

import "testing"

func TestQuantityPerSlot(t *testing.T) {
	it := Item{SKU: "BK-1", Quantity: 5}
	slots := it.Capacity
	if it.Quantity/slots != 1 {
		t.Fatal("per slot")
	}
}'

go_case fallback-assertion test 'package inventory

import "testing"

func TestStatusExpired(t *testing.T) {
	it := Item{SKU: "BK-1", Quantity: 5, Expires: 10}
	if got := it.Status(1); got != "expired" {
		t.Errorf("Status(1) = %q, want %q", got, "expired")
	}
}'

# ---------------------------------------------------------------- Rust
rust_case() { # id phase code
  want rust "$1" || return 0
  begin rust "$1" "$2" geometry-rs "$3"
  local f="$S/src/triangle.rs"
  printf '\n\n#[cfg(test)]\nmod xrepotest_%s {\n%s\n}\n' "$XID" "$CODE" >>"$f"
  local envs=(HOME="$S/.xrt/home" TMPDIR="$S/.xrt/tmp" LANG=C.UTF-8 "RUSTFLAGS=-C instrument-coverage -A warnings" CARGO_TARGET_DIR="$S/.xrt/target" CARGO_NET_OFFLINE=true CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}" RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}")
  if run "$COMPILE_LOG" "$S" "${envs[@]}" -- cargo test --no-run --message-format=json --offline; then
    : >"$TEST_LOG"
    local exe
    for exe in $(grep "^{" "$COMPILE_LOG" | jq -r 'select(.reason=="compiler-artifact" and .profile.test==true and .executable!=null) | .executable'); do
      run "$S/.xrt/one.log" "$S" HOME="$S/.xrt/home" TMPDIR="$S/.xrt/tmp" LANG=C.UTF-8 LLVM_PROFILE_FILE="$S/.xrt/prof/%p-%m.profraw" -- "$exe" "xrepotest_${XID}::"
      cat "$S/.xrt/one.log" >>"$TEST_LOG"
    done
  fi
  finish
}

rust_case rust-E0425 compile '    use super::*;

    #[test]
    fn perimeter_of_unit_triangle() {
        assert_eq!(perimeter(1.0, 1.0, 1.0), 3.0);
    }'

rust_case rust-unresolved-crate compile '    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn perimeter_of_unit_triangle() {
        assert_relative_eq!(triangle_perimeter(1.0, 1.0, 1.0).unwrap(), 3.0);
    }'

rust_case rust-unresolved-crate.E0433 compile '    use super::*;

    #[test]
    fn perimeter_is_close() {
        let p = triangle_perimeter(1.0, 1.0, 1.0).unwrap();
        float_cmp::assert_approx_eq!(f64, p, 3.0);
    }'

rust_case rust-unresolved-path compile '    use super::*;
    use crate::triangle::TriangleError;

    #[test]
    fn rejects_negative_side() {
        assert!(triangle_perimeter(-1.0, 1.0, 1.0).is_none());
    }'

rust_case rust-unknown-type compile '    use super::*;

    fn sides() -> Triangle {
        Triangle::new(3.0, 4.0, 5.0)
    }

    #[test]
    fn right_triangle() {
        let _t = sides();
    }'

rust_case rust-E0599 compile '    use super::*;

    #[test]
    fn kind_name() {
        let kind = classify_triangle(3.0, 3.0, 3.0);
        assert_eq!(kind.name(), "equilateral");
    }'

rust_case rust-E0560 compile '    use super::*;
    use crate::point::Point;

    #[test]
    fn point_with_z() {
        let p = Point { x: 1.0, y: 2.0, z: 0.0 };
        assert_eq!(p.x, 1.0);
    }'

rust_case rust-E0609 compile '    use super::*;
    use crate::point::Point;

    #[test]
    fn point_z() {
        let p = Point::new(1.0, 2.0);
        assert_eq!(p.z, 0.0);
    }'

rust_case rust-E0061 compile '    use super::*;

    #[test]
    fn perimeter_two_sides() {
        assert_eq!(triangle_perimeter(3.0, 4.0), None);
    }'

rust_case rust-E0308 compile '    use super::*;

    #[test]
    fn perimeter_value() {
        let p: f64 = triangle_perimeter(3.0, 4.0, 5.0);
        assert_eq!(p, 12.0);
    }'

rust_case rust-E0382 compile '    use super::*;

    #[test]
    fn moved_vector() {
        let sides = vec![3.0, 4.0, 5.0];
        let moved = sides;
        assert_eq!(triangle_perimeter(sides[0], sides[1], sides[2]), Some(12.0));
        drop(moved);
    }'

rust_case rust-E0499 compile '    use super::*;

    #[test]
    fn two_mutable_borrows() {
        let mut sides = vec![3.0, 4.0, 5.0];
        let a = &mut sides;
        let b = &mut sides;
        a.push(1.0);
        b.push(2.0);
        assert!(triangle_perimeter(3.0, 4.0, 5.0).is_some());
    }'

rust_case rust-E0502 compile '    use super::*;

    #[test]
    fn borrow_while_pushing() {
        let mut sides = vec![3.0, 4.0, 5.0];
        let first = &sides[0];
        sides.push(6.0);
        assert_eq!(triangle_perimeter(*first, 4.0, 5.0), Some(12.0));
    }'

rust_case rust-E0505 compile '    use super::*;

    #[test]
    fn move_while_borrowed() {
        let sides = vec![3.0, 4.0, 5.0];
        let first = &sides[0];
        let moved = sides;
        assert_eq!(triangle_perimeter(*first, 4.0, 5.0), Some(12.0));
        drop(moved);
    }'

rust_case rust-E0506 compile '    use super::*;

    #[test]
    fn assign_while_borrowed() {
        let mut side = 3.0;
        let r = &side;
        side = 4.0;
        assert_eq!(triangle_perimeter(*r, 4.0, 5.0), Some(12.0));
        let _ = side;
    }'

rust_case rust-E0597 compile '    use super::*;

    #[test]
    fn dangling_reference() {
        let r;
        {
            let side = 3.0;
            r = &side;
        }
        assert_eq!(triangle_perimeter(*r, 4.0, 5.0), Some(12.0));
    }'

rust_case rust-E0106 compile '    use super::*;

    fn longest(a: &str, b: &str) -> &str {
        if a.len() > b.len() { a } else { b }
    }

    #[test]
    fn kind_label() {
        assert_eq!(longest("ab", "c"), "ab");
        let _ = classify_triangle(3.0, 3.0, 3.0);
    }'

rust_case rust-E0277 compile '    use super::*;

    #[test]
    fn perimeter_of_integers() {
        let total: f64 = vec![3, 4, 5].iter().sum::<i32>() + triangle_perimeter(3.0, 4.0, 5.0).unwrap();
        assert_eq!(total, 24.0);
    }'

rust_case rust-syntax-error compile '    use super::*;

    #[test]
    fn perimeter_value() {
        let p = triangle_perimeter(3.0, 4.0, 5.0).unwrap()
        assert_eq!(p, 12.0);
    }'

rust_case rust-arithmetic-overflow test '    use super::*;

    #[test]
    fn side_count_overflows() {
        let sides: u8 = 250;
        let extra: u8 = std::hint::black_box(10);
        let total = sides + extra;
        assert!(triangle_perimeter(total as f64, 4.0, 5.0).is_some());
    }'

rust_case rust-index-out-of-bounds test '    use super::*;

    #[test]
    fn fourth_side() {
        let sides = vec![3.0, 4.0, 5.0];
        let i = std::hint::black_box(3);
        assert!(triangle_perimeter(sides[0], sides[1], sides[i]).is_some());
    }'

rust_case rust-stack-overflow test '    use super::*;

    fn recurse(n: u64) -> f64 {
        let pad = std::hint::black_box([n; 64]);
        recurse(pad[0] + 1) + pad[1] as f64
    }

    #[test]
    fn endless_perimeter() {
        assert!(triangle_perimeter(recurse(0), 4.0, 5.0).is_some());
    }'

rust_case rust-assertion-failed test '    use super::*;

    #[test]
    fn perimeter_value() {
        assert_eq!(triangle_perimeter(3.0, 4.0, 5.0), Some(13.0));
    }'

rust_case rust-unwrap-panic test '    use super::*;

    #[test]
    fn degenerate_triangle_has_perimeter() {
        let p = triangle_perimeter(1.0, 1.0, 5.0).unwrap();
        assert!(p > 0.0);
    }'

# ---------------------------------------------------------------- PHP
php_case() { # id phase code
  want php "$1" || return 0
  begin php "$1" "$2" textkit-php "$3"
  # Placement: the first class name gets Xrt<id> before its trailing "Test" (docs/execution.md).
  local cls; cls="$(grep -oE 'class [A-Za-z0-9_]+' <<<"$CODE" | head -1 | cut -d' ' -f2)"
  local renamed="${cls%Test}Xrt${XID}Test"
  local file="$S/tests/$renamed.php"
  sed "s/class $cls\\b/class $renamed/" <<<"$CODE" >"$file"
  # No vendor/ in the fixture: the bootstrap is an autoloader written from composer.json.
  node -e 'const {phpAutoloaderSource}=require(process.argv[1]);const fs=require("fs");fs.writeFileSync(process.argv[3],phpAutoloaderSource(JSON.parse(fs.readFileSync(process.argv[2],"utf8"))))' \
    "$ROOT/out/src/engine/languages/php/autoload.js" "$S/composer.json" "$S/.xrt/autoload.php"
  local envs=(HOME="$S/.xrt/home" TMPDIR="$S/.xrt/tmp" LANG=C.UTF-8)
  if run "$COMPILE_LOG" "$S" "${envs[@]}" -- php -l "$file"; then
    run "$TEST_LOG" "$S" "${envs[@]}" -- php -d pcov.enabled=1 -d pcov.directory="$S" -d memory_limit=1G "$(command -v phpunit)" \
      --no-configuration --bootstrap "$S/.xrt/autoload.php" --do-not-cache-result --log-junit "$S/.xrt/junit.xml" \
      --coverage-filter "$S/src" --coverage-clover "$S/.xrt/clover.xml" "$file"
  fi
  finish
}

php_head='<?php

declare(strict_types=1);

namespace Textkit\Tests;

use PHPUnit\Framework\TestCase;
use Textkit\Slugger;
'

php_case php-undefined-method test "${php_head}
final class SluggerTest extends TestCase
{
    public function testSlugifyWithLimit(): void
    {
        \$slugger = new Slugger();
        \$this->assertSame('hello-world', \$slugger->slugifyWithLimit('Hello World', 20));
    }
}"

php_case php-undefined-function test "${php_head}
final class WrapTest extends TestCase
{
    public function testWrapsWords(): void
    {
        \$this->assertSame(\"a b\", \\Textkit\\wrap_words('a b', 10));
    }
}"

php_case php-class-not-found test "${php_head}
use Faker\\Factory;

final class SluggerTest extends TestCase
{
    public function testSlugifyRandomText(): void
    {
        \$faker = Factory::create();
        \$this->assertNotSame('', (new Slugger())->slugify(\$faker->sentence()));
    }
}"

php_case php-undefined-constant test "${php_head}
final class SluggerTest extends TestCase
{
    public function testDefaultSeparator(): void
    {
        \$this->assertSame('-', Slugger::DEFAULT_SEPARATOR);
    }
}"

php_case php-argument-count test "${php_head}
final class SluggerTest extends TestCase
{
    public function testSlugifyNothing(): void
    {
        \$this->assertSame('', (new Slugger())->slugify());
    }
}"

php_case php-type-error test "${php_head}
final class SluggerTest extends TestCase
{
    public function testSlugifyNumber(): void
    {
        \$this->assertSame('42', (new Slugger())->slugify(42));
    }
}"

php_case php-member-on-null test "${php_head}
final class SluggerTest extends TestCase
{
    private ?Slugger \$slugger = null;

    public function testSlugify(): void
    {
        \$this->assertSame('hello-world', \$this->slugger->slugify('Hello World'));
    }
}"

php_case php-removed-phpunit-api test "${php_head}
final class SluggerTest extends TestCase
{
    public function testSlugifyReturnsString(): void
    {
        \$this->assertInternalType('string', (new Slugger())->slugify('Hello World'));
    }
}"

php_case php-parse-error compile "${php_head}
final class SluggerTest extends TestCase
{
    public function testSlugify(): void
    {
        \$slugger = new Slugger()
        \$this->assertSame('hello-world', \$slugger->slugify('Hello World'));
    }
}"

php_case fallback-assertion test "${php_head}
final class SluggerTest extends TestCase
{
    public function testSlugify(): void
    {
        \$this->assertSame('Hello_World', (new Slugger())->slugify('Hello World'));
    }
}"

# ---------------------------------------------------------------- Ruby
ruby_case() { # id phase code
  want ruby "$1" || return 0
  begin ruby "$1" "$2" bookshelf-rb "$3"
  local file="$S/spec/xrepotest_${XID}_spec.rb"
  if grep -q "spec_helper" <<<"$CODE"; then printf '%s\n' "$CODE" >"$file"; else printf "require 'spec_helper'\n%s\n" "$CODE" >"$file"; fi
  cat >"$S/.xrt/coverage_start.rb" <<RB
require 'coverage'
require 'json'
Coverage.start(lines: true)
at_exit { File.write('$S/.xrt/coverage.json', JSON.generate(Coverage.result)) }
RB
  local envs=(HOME="$S/.xrt/home" TMPDIR="$S/.xrt/tmp" LANG=C.UTF-8)
  if run "$COMPILE_LOG" "$S" "${envs[@]}" -- ruby -c "$file"; then
    # The fixture's bundle is not installed here, so rspec runs without bundle exec.
    run "$TEST_LOG" "$S" "${envs[@]}" RUBYOPT="-r$S/.xrt/coverage_start.rb" -- rspec --format json --out "$S/.xrt/rspec.json" --format progress "$file"
  fi
  finish
}

ruby_case ruby-nomethod-nil test 'RSpec.describe Bookshelf::Catalog do
  it "finds a book by isbn" do
    catalog = described_class.new([build_book(isbn: "1")])
    expect(catalog.search("nothing-matches").first.title).to eq("Untitled")
  end
end'

ruby_case ruby-nomethod test 'RSpec.describe Bookshelf::Catalog do
  it "finds a book by isbn" do
    catalog = described_class.new([build_book(isbn: "1")])
    expect(catalog.find_by_isbn("1").title).to eq("Untitled")
  end
end'

ruby_case ruby-uninitialized-constant test 'RSpec.describe Bookshelf::Catalog do
  it "builds books with a factory" do
    book = FactoryBot.build(:book)
    expect(described_class.new([book]).search("Untitled")).not_to be_empty
  end
end'

ruby_case ruby-undefined-local test 'RSpec.describe Bookshelf::Catalog do
  it "searches a prepared catalogue" do
    expect(sample_catalog.search("Untitled")).not_to be_empty
  end
end'

ruby_case ruby-load-error test 'require "factory_bot"

RSpec.describe Bookshelf::Catalog do
  it "builds books with a factory" do
    book = FactoryBot.build(:book)
    expect(described_class.new([book]).search("Untitled")).not_to be_empty
  end
end'

ruby_case ruby-argument-count test 'RSpec.describe Bookshelf::Catalog do
  it "searches with a limit" do
    catalog = described_class.new([build_book])
    expect(catalog.search("Untitled", 5, true)).not_to be_empty
  end
end'

ruby_case ruby-type-error test 'RSpec.describe Bookshelf::Catalog do
  it "searches for a year" do
    catalog = described_class.new([build_book])
    expect(catalog.search("Untitled").size + "1").to eq(2)
  end
end'

ruby_case ruby-should-syntax test 'RSpec.describe Bookshelf::Catalog do
  it "finds the book" do
    catalog = described_class.new([build_book])
    catalog.search("Untitled").size.should == 1
  end
end'

ruby_case ruby-syntax-error compile 'RSpec.describe Bookshelf::Catalog do
  it "searches" do
    catalog = described_class.new([build_book])
    expect(catalog.search("Untitled")).not_to be_empty
end'

ruby_case fallback-assertion test 'RSpec.describe Bookshelf::Catalog do
  it "finds nothing for an unknown title" do
    catalog = described_class.new([build_book])
    expect(catalog.search("Untitled")).to be_empty
  end
end'
