#!/usr/bin/env bash
# A project-local PHPUnit 11 for the local executor, for packages whose composer.json requires PHPUnit
# >= 10 on a host whose Debian (bookworm) ships 9.6. Packagist and phar.phpunit.de are not reachable
# from here; Debian's archive is: trixie's phpunit .deb and its PHP library dependencies (all
# "Architecture: all", PHPUnit 11 needs PHP >= 8.2) are fetched, checked against the archive's signed
# index, and unpacked into a cache folder with `dpkg-deb -x`, never installed over the host's packages.
# The local executor finds it there (languages/php/runners.ts) and shows it read-only in its sandbox.
# Safe to run again: it does nothing when that version is already unpacked.
set -euo pipefail

MIRROR=${XRT_DEBIAN_MIRROR:-http://deb.debian.org/debian}
SUITE=trixie
HOME_DIR=${XRT_PHPUNIT_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/xrepotest/phpunit}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

command -v php >/dev/null || { echo "setup-phpunit: no php here, nothing to do" >&2; exit 0; }
for tool in curl gpgv dpkg-deb xz sha256sum; do
  command -v "$tool" >/dev/null || { echo "setup-phpunit: $tool is missing; no project-local PHPUnit 11" >&2; exit 0; }
done
[ -f "$KEYRING" ] || { echo "setup-phpunit: no Debian archive keyring ($KEYRING); no project-local PHPUnit 11" >&2; exit 0; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fetch() { curl -fsS --retry 2 --max-time 120 -o "$2" "$MIRROR/$1"; }

# The index, trusted through the archive's signature: InRelease names Packages.xz's checksum.
fetch "dists/$SUITE/InRelease" "$work/InRelease" || { echo "setup-phpunit: $MIRROR is not reachable; no project-local PHPUnit 11" >&2; exit 0; }
gpgv --keyring "$KEYRING" --output "$work/Release" "$work/InRelease" 2>/dev/null \
  || { echo "setup-phpunit: the $SUITE InRelease signature does not verify" >&2; exit 1; }
want=$(awk '/^SHA256:/{s=1;next} /^[A-Za-z]/{s=0} s && $3=="main/binary-all/Packages.xz"{print $1}' "$work/Release")
fetch "dists/$SUITE/main/binary-all/Packages.xz" "$work/Packages.xz"
# A mirror mid-update (or a caching proxy) may serve an index older than its InRelease. Then the .debs
# are checked against that unsigned index only: said loudly, and refused with XRT_PHPUNIT_SIGNED_ONLY=1.
# Either way PHPUnit only ever runs inside the executor's sandbox, next to the generated test.
if [ -z "$want" ] || ! echo "$want  $work/Packages.xz" | sha256sum -c --quiet - >/dev/null 2>&1; then
  [ "${XRT_PHPUNIT_SIGNED_ONLY:-0}" = 1 ] && { echo "setup-phpunit: $SUITE's Packages.xz does not match its signed InRelease" >&2; exit 1; }
  echo "setup-phpunit: WARNING: $SUITE's Packages.xz does not match its signed InRelease; the .debs are checked against that index only" >&2
fi
xz -dc "$work/Packages.xz" > "$work/Packages"

field() { awk -v p="$1" -v f="$2" '$0=="Package: "p{s=1;next} /^$/{s=0} s && index($0,f": ")==1{print substr($0,length(f)+3); exit}' "$work/Packages"; }

version=$(field phpunit Version)
case "$version" in 11.*) ;; *) echo "setup-phpunit: $SUITE's phpunit is $version, not 11; nothing installed" >&2; exit 0 ;; esac
upstream=${version%%-*}
dest="$HOME_DIR/$upstream"
if [ -x "$dest/bin/phpunit" ] && [ -f "$dest/VERSION" ]; then
  echo "setup-phpunit: PHPUnit $upstream is already in $dest"
  exit 0
fi

# phpunit's dependency closure within Debian's PHP library packages (php-cli and the extensions it
# lists are the host's own: php-xml and php-mbstring come from setup.sh).
host_provided=" php-cli php-common php-xml php-json php-mbstring "
todo=(phpunit) seen=" "
while [ ${#todo[@]} -gt 0 ]; do
  pkg=${todo[0]}; todo=("${todo[@]:1}")
  case "$seen" in *" $pkg "*) continue ;; esac
  seen="$seen$pkg "
  for dep in $(field "$pkg" Depends | tr ',' '\n' | sed 's/^ *//; s/[ |(].*//'); do
    case "$host_provided" in *" $dep "*) continue ;; esac
    case "$dep" in php-*|phpunit*) todo+=("$dep") ;; esac
  done
done

root="$work/root"
mkdir -p "$root"
for pkg in $seen; do
  file=$(field "$pkg" Filename) sum=$(field "$pkg" SHA256)
  [ -n "$file" ] && [ -n "$sum" ] || { echo "setup-phpunit: $pkg is not in $SUITE's index" >&2; exit 1; }
  fetch "$file" "$work/$pkg.deb"
  echo "$sum  $work/$pkg.deb" | sha256sum -c --quiet - || { echo "setup-phpunit: $pkg.deb does not match the index" >&2; exit 1; }
  dpkg-deb -x "$work/$pkg.deb" "$root"
done

# Some of Debian's autoloaders require their dependencies by absolute path (/usr/share/php/…), which
# would load the host's older copies (bookworm's PHPUnit 9 libraries): relative to the file instead.
share="$root/usr/share/php"
grep -rl --include='*.php' "'/usr/share/php/" "$share" | while read -r f; do
  up=$(dirname "${f#"$share"/}" | sed 's#[^/][^/]*#..#g')
  sed -i "s#'/usr/share/php/#__DIR__ . '/$up/#g" "$f"
done

# The proof it runs on this PHP: its own version line.
line=$(php "$root/usr/bin/phpunit" --version 2>&1 | head -1) || true
case "$line" in "PHPUnit $upstream "*) ;; *) echo "setup-phpunit: PHPUnit $upstream does not run on $(php -r 'echo PHP_VERSION;'): $line" >&2; exit 0 ;; esac

mkdir -p "$HOME_DIR"
staging="$HOME_DIR/.staging-$$"
rm -rf "$staging"
mkdir -p "$staging/bin"
cp -a "$root/usr/share" "$staging/share"
cp "$root/usr/bin/phpunit" "$staging/bin/phpunit"
echo "$upstream" > "$staging/VERSION"
rm -rf "$dest"
mv "$staging" "$dest"
echo "setup-phpunit: PHPUnit $upstream (Debian $SUITE $version) in $dest"
