import * as path from 'node:path';

/*
 * Which of a package's cargo targets a slot's compile builds. The test module goes into the focal
 * file, which belongs to the library or a binary: only their test harnesses can hold its tests. A
 * plain `cargo test --no-run` also rebuilds every integration test, example and benchmark, which link
 * the library and so are rebuilt whenever a file of it changes — though none can contain the new
 * test (it is `#[cfg(test)]`, absent from the library they link). On dtolnay/semver 8591f23 that is
 * 1.28 s of a 1.28 s compile against 0.47 s for `--lib` alone.
 *
 * What the package's targets are comes from `cargo metadata --no-deps` run in the trusted warm-up,
 * before the test exists. The repository is hostile, so its answer is checked and only ever selects
 * among `--lib` and `--bins`: a lie builds less (the test is then not built: scored not compiled,
 * `test-not-built`, never a pass) or everything (as before).
 */

/** Where the warm-up writes cargo's answer, in the sandbox's `.xrt`. */
export const CARGO_METADATA_FILE = 'cargo-metadata.json';

/** The largest answer read (a workspace of hundreds of members is far smaller). */
export const MAX_METADATA_BYTES = 8 * 1024 ** 2;

const LIBRARY_KINDS = new Set(['lib', 'rlib', 'dylib', 'cdylib', 'staticlib', 'proc-macro']);

interface MetadataTarget {
  kind?: unknown;
  src_path?: unknown;
}

/**
 * `--lib` and/or `--bins` when the focal file lies in the folder of the package's library or a
 * binary root (so its test module is in one of their test harnesses); [] (build every target, as
 * `cargo test` does) when the answer does not say, names no such target, or the file lies elsewhere.
 * `manifestPath` and `focalFile` as cargo sees them (the phases' paths).
 */
export function testTargetArgs(metadataJson: string | null, manifestPath: string, focalFile: string): string[] {
  if (!metadataJson) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(metadataJson);
  } catch {
    return [];
  }
  const packages = (parsed as { packages?: unknown })?.packages;
  if (!Array.isArray(packages)) return [];
  const pkg = packages.find((p: { manifest_path?: unknown }) => p && p.manifest_path === manifestPath) as { targets?: unknown } | undefined;
  if (!pkg || !Array.isArray(pkg.targets)) return [];
  const packageDir = path.dirname(manifestPath);
  let lib = false;
  let bins = false;
  let holds = false;
  for (const t of pkg.targets as MetadataTarget[]) {
    if (!t || !Array.isArray(t.kind) || typeof t.src_path !== 'string') continue;
    const isLib = t.kind.some((k) => typeof k === 'string' && LIBRARY_KINDS.has(k));
    const isBin = t.kind.includes('bin');
    if (!isLib && !isBin) continue;
    // A root outside the package (a path cargo would not take) says nothing we can use.
    const rootDir = path.dirname(t.src_path);
    if (!isInside(rootDir, packageDir)) continue;
    lib ||= isLib;
    bins ||= isBin;
    if (isInside(focalFile, rootDir)) holds = true;
  }
  if (!holds) return [];
  return [...(lib ? ['--lib'] : []), ...(bins ? ['--bins'] : [])];
}

function isInside(p: string, dir: string): boolean {
  const rel = path.relative(dir, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}
