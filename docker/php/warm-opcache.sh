#!/bin/sh
# Fills an opcache file cache with PHPUnit compiled: PHPUnit run once on a scratch project of our own
# (a passing, a failing and an erroring test, a data provider, coverage and JUnit: the paths a scored
# run takes), never on anyone's code. Used by the PHP images (docker/php/Dockerfile.*) and by the local
# executor (src/engine/languages/php/opcache.ts), so both warm the same way.
#
#   sh warm-opcache.sh CACHE_DIR PHPUNIT MAJOR
#
# PHP's settings are the scored runs' (toolchain.ts phpSettings and opcache.ts opcacheSettings; a unit
# test keeps them equal): another setting could give another system id, and the cache would not be
# read. The scratch project's own entries are removed. Exits non-zero when PHPUnit did not run.
set -eu
cache=$1 phpunit=$2 major=$3
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
mkdir -p "$cache" "$w/src" "$w/tests"
cat > "$w/src/Warm.php" <<'PHP'
<?php
namespace XrtWarm;
final class Warm
{
    public function twice(int $x): int
    {
        return 2 * $x;
    }
}
PHP
printf '<?php\nrequire __DIR__ . "/src/Warm.php";\n' > "$w/bootstrap.php"
cat > "$w/tests/WarmTest.php" <<'PHP'
<?php
namespace XrtWarm;
use PHPUnit\Framework\TestCase;
final class WarmTest extends TestCase
{
    public static function values(): array
    {
        return [[1, 2], [2, 4]];
    }
    /** @dataProvider values */
    public function testTwice(int $x, int $y): void
    {
        $this->assertSame($y, (new Warm())->twice($x));
    }
    public function testFails(): void
    {
        $this->assertSame(['a' => 1], ['a' => 2]);
    }
    public function testErrors(): void
    {
        throw new \RuntimeException('warm');
    }
}
PHP
if [ "$major" -ge 10 ]; then
  printf '<?xml version="1.0" encoding="UTF-8"?>\n<phpunit bootstrap="%s" cacheResult="false">\n  <source><include><file>%s</file></include></source>\n</phpunit>\n' "$w/bootstrap.php" "$w/src/Warm.php" > "$w/phpunit.xml"
  set -- --configuration "$w/phpunit.xml"
else
  set -- --no-configuration --bootstrap "$w/bootstrap.php" --coverage-filter "$w/src/Warm.php"
fi
# Two of its four tests fail on purpose: PHPUnit's exit code says nothing here, its report does.
php -d pcov.enabled=1 -d pcov.directory="$w" -d memory_limit=1G -d display_errors=stderr -d opcache.enable_cli=1 -d opcache.file_cache="$cache" -d opcache.file_cache_only=1 -d opcache.optimization_level=0 \
  "$phpunit" "$@" --do-not-cache-result --log-junit "$w/junit.xml" --coverage-clover "$w/clover.xml" "$w/tests/WarmTest.php" > "$w/out.txt" 2>&1 || true
if ! grep -q '<testcase' "$w/junit.xml" 2>/dev/null; then
  echo "PHPUnit did not run:" >&2
  tail -n 20 "$w/out.txt" >&2
  exit 1
fi
for s in "$cache"/*/; do rm -rf "$s${w#/}"; done
