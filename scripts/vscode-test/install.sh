#!/usr/bin/env bash
# Installs code-server (VS Code's server + web client, from npm) into the git-ignored
# .vscode-test/code-server, for the extension's tests in a real VS Code (test/vscode/run.ts).
# Microsoft's VS Code downloads are unreachable offline; npm is not (../shared/notes/vscode-host.md).
# Safe to run again: it does nothing when this version is already installed.
set -euo pipefail
cd "$(dirname "$0")/../.."

VERSION=4.100.3          # ships VS Code 1.100.3; runs on Node 20 (package.json engines.vscode ^1.100.0)
RG_PKG_VERSION=1.15.11   # @vscode/ripgrep, as code-server@$VERSION locks it
RG_ASSET=ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz
PREFIX=.vscode-test/code-server
MARKER="$PREFIX/.installed-$VERSION"

if [ -f "$MARKER" ] && [ -x "$PREFIX/node_modules/.bin/code-server" ]; then
  exit 0
fi
command -v rg >/dev/null || { echo "vscode-test: needs Debian's ripgrep (rg); run scripts/setup.sh" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# @vscode/ripgrep's postinstall downloads rg from GitHub unless its cache (under os.tmpdir()) already
# holds the release asset; Debian's rg is the same program, so the cache is seeded with it.
cache="$work/vscode-ripgrep-cache-$RG_PKG_VERSION"
mkdir -p "$cache"
cp "$(command -v rg)" "$work/rg"
tar -czf "$cache/$RG_ASSET" -C "$work" rg

mkdir -p "$PREFIX"
# --prefix needs a package.json of its own, or npm walks up to the project's.
[ -f "$PREFIX/package.json" ] || echo '{ "private": true }' >"$PREFIX/package.json"
echo "vscode-test: installing code-server@$VERSION into $PREFIX (about 2 minutes)"
# unsafe_perm: its postinstall runs as root here; yes: node-pty's postinstall runs `npx node-gyp`.
# TMPDIR: where @vscode/ripgrep looks for its cache.
TMPDIR="$work" npm_config_unsafe_perm=true npm_config_yes=true \
  npm install --prefix "$PREFIX" --no-audit --no-fund --no-save "code-server@$VERSION"
"$PREFIX/node_modules/.bin/code-server" --version >/dev/null
touch "$MARKER"
