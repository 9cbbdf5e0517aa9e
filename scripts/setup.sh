#!/usr/bin/env bash
# Installs what a fresh machine of this project's kind lacks (Node 20, Go, Rust and Python are there):
# the Debian toolchains and tools the tests run for real, and the npm packages. Safe to run again: it
# installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

# The LLVM tools must match rustc's own LLVM (Rust coverage: llvm-profdata-<V>, llvm-cov-<V>).
llvm=""
if command -v rustc >/dev/null; then
  v=$(rustc --version --verbose | sed -n 's/^LLVM version: \([0-9]*\).*/\1/p')
  [ -n "$v" ] && llvm="llvm-$v"
fi

# PHP + PHPUnit + pcov, Ruby + RSpec + SimpleCov: the fixtures' runners; bubblewrap: the local
# executor's isolation.
tools=(php-cli php-xml php-mbstring phpunit php-pcov ruby ruby-rspec ruby-simplecov bubblewrap $llvm)
# The docker executor on machines without Docker: Podman serves the Docker Engine API
# (scripts/podman-service.sh), runc replaces crun, debootstrap makes the base image without a registry.
containers=(podman runc debootstrap uidmap catatonit)

missing=()
for p in "${tools[@]}" "${containers[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ] && ! command -v sudo >/dev/null; then
    echo "setup: missing Debian packages: ${missing[*]} (run as root, or install them)" >&2
    exit 1
  fi
  SUDO=$([ "$(id -u)" -eq 0 ] || echo sudo)
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# npm packages, exactly as locked; again only when the lock file changed since the last install.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
