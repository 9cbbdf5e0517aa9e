import type { LanguageImage } from '../execution-types';

/** Rust's images (docker/rust/): cargo fetches a workspace's crates at build time. */
export const rustImage: LanguageImage = {
  officialBase: 'docker.io/library/rust:1.85-bookworm',
  manifest: 'Cargo.toml',
  skippedDirs: ['target'],
  lockFiles: ['Cargo.toml', 'Cargo.lock'],
  installCommand: ({ cd }) => `${cd} && CARGO_NET_OFFLINE=false cargo fetch`,
  caBundleEnv: ['CARGO_HTTP_CAINFO'],
  versionScript:
    'echo "rustc=$(rustc --version)"; echo "cargo=$(cargo --version)"; ' +
    'v=$(rustc -vV | sed -n "s/^LLVM version: \\([0-9]*\\).*/\\1/p"); echo "llvm-profdata=$(llvm-profdata-$v --version 2>&1 | grep -m1 -i version | sed "s/^ *//")"',
  toolChecks: [
    'command -v cargo >/dev/null || echo "missing=cargo"',
    'V=$(rustc -vV 2>/dev/null | sed -n "s/^LLVM version: \\([0-9]*\\).*/\\1/p")',
    'command -v llvm-profdata-$V >/dev/null || command -v llvm-profdata >/dev/null || echo "missing=llvm-profdata (coverage needs llvm-profdata-$V or llvm-profdata)"',
    'command -v llvm-cov-$V >/dev/null || command -v llvm-cov >/dev/null || echo "missing=llvm-cov (coverage needs llvm-cov-$V or llvm-cov)"',
  ].join('; '),
};
