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
# executor's isolation; chromium: the HTML report's rendering test (playwright-core drives it).
tools=(php-cli php-xml php-mbstring phpunit php-pcov ruby ruby-rspec ruby-simplecov bubblewrap chromium $llvm)
# The gems hashie's spec helper requires (test/unit/fidelity-ruby.test.ts): without them its specs
# meet the environment verdict instead of being compared with Ruby's own coverage.
tools+=(pry ruby-rspec-pending-for)
# The docker executor on machines without Docker: Podman serves the Docker Engine API
# (scripts/podman-service.sh), runc replaces crun, debootstrap makes the base image without a registry;
# docker-registry serves the registry protocol on loopback for the published-images tests.
containers=(podman runc debootstrap uidmap catatonit docker-registry)
# The distributed benchmark's queue (BullMQ): its tests start their own redis-server on a free port.
containers+=(redis-server)

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

# PHP packages requiring PHPUnit >= 10 need a newer runner than bookworm's 9.6: a project-local
# PHPUnit 11 from Debian trixie's .debs, unpacked into a cache folder (scripts/setup-phpunit.sh).
bash scripts/setup-phpunit.sh || echo "setup: no project-local PHPUnit 11; packages requiring it get an environment verdict under the local executor" >&2

# npm packages, exactly as locked; again only when the lock file changed since the last install.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi

# Language servers for headless LSP context (src/engine/context/lsp). rust-analyzer: Debian's
# rust-web-analyzer installs /usr/bin/rust-analyzer (rustup's ~/.cargo/bin proxy does not work without
# its component). intelephense comes with the npm packages above; TypeProf ships with Debian's Ruby.
if [ ! -x /usr/bin/rust-analyzer ]; then
  SUDO=$([ "$(id -u)" -eq 0 ] || echo sudo)
  apt-cache show rust-web-analyzer >/dev/null 2>&1 || $SUDO apt-get update -qq
  if apt-cache show rust-web-analyzer >/dev/null 2>&1; then
    echo "setup: installing rust-web-analyzer"
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq rust-web-analyzer >/dev/null
  else
    echo "setup: no rust-web-analyzer package here; Rust LSP context will say what is missing" >&2
  fi
fi
# gopls into the git-ignored .tools/bin: Debian's gopls 0.5 is too old. The newest gopls may need a
# newer Go than the machine's (gopls v0.24 needs go >= 1.27); v0.23.0 builds with go 1.26.
if command -v go >/dev/null && [ ! -x .tools/bin/gopls ]; then
  echo "setup: installing gopls into .tools/bin"
  GOBIN="$PWD/.tools/bin" go install golang.org/x/tools/gopls@latest 2>/dev/null \
    || GOBIN="$PWD/.tools/bin" go install golang.org/x/tools/gopls@v0.23.0
fi

# The extension's tests in a real VS Code (test/vscode, `npm run test:vscode`): code-server from npm
# into the git-ignored .vscode-test/, driven by Debian's chromium. Its install takes rg from Debian's
# ripgrep (instead of GitHub) and builds the kerberos module against libkrb5-dev.
vscode_missing=()
for p in chromium ripgrep libkrb5-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || vscode_missing+=("$p")
done
if [ ${#vscode_missing[@]} -gt 0 ]; then
  SUDO=$([ "$(id -u)" -eq 0 ] || echo sudo)
  echo "setup: installing ${vscode_missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${vscode_missing[@]}" >/dev/null
fi
bash scripts/vscode-test/install.sh

# The deployment files' offline check (test/integration/deploy-files.test.ts): PyPI's
# kubernetes-validate ships the Kubernetes JSON schemas (and PyYAML, which reads compose.yaml).
KV_VERSION=1.37.0
if ! PYTHONPATH=.tools/kubernetes-validate python3 -m kubernetes_validate --version 2>/dev/null | grep -q "$KV_VERSION"; then
  echo "setup: installing kubernetes-validate $KV_VERSION into .tools/kubernetes-validate"
  rm -rf .tools/kubernetes-validate
  python3 -m pip install --quiet --disable-pip-version-check --target .tools/kubernetes-validate "kubernetes-validate==$KV_VERSION" 2>&1 | grep -v "^WARNING: Running pip as" || true
fi

# deploy/compose.yaml run for real (test/integration/deploy-compose.test.ts): Podman's compose, from PyPI.
PC_VERSION=1.6.0
if ! PYTHONPATH=.tools/podman-compose python3 -c "import importlib.metadata as m, sys; sys.exit(m.version('podman-compose') != '$PC_VERSION')" 2>/dev/null; then
  echo "setup: installing podman-compose $PC_VERSION into .tools/podman-compose"
  rm -rf .tools/podman-compose
  python3 -m pip install --quiet --disable-pip-version-check --target .tools/podman-compose "podman-compose==$PC_VERSION" 2>&1 | grep -v "^WARNING: Running pip as" || true
fi

# Debian's redis-server package starts a system Redis on :6379 where systemd runs; the tests start
# their own on a free loopback port, so the system one is stopped and disabled.
if command -v systemctl >/dev/null && systemctl is-enabled redis-server >/dev/null 2>&1; then
  SUDO=$([ "$(id -u)" -eq 0 ] || echo sudo)
  $SUDO systemctl disable --now redis-server >/dev/null 2>&1 || true
fi

# Debian's docker-registry package enables a registry service on :5000 on all interfaces; the tests
# start their own on loopback, so the system one is stopped and disabled where systemd runs.
if command -v systemctl >/dev/null && systemctl is-enabled docker-registry >/dev/null 2>&1; then
  SUDO=$([ "$(id -u)" -eq 0 ] || echo sudo)
  $SUDO systemctl disable --now docker-registry >/dev/null 2>&1 || true
fi
