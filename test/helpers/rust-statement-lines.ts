import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { REPO_ROOT } from './paths';

/*
 * The native side's Rust statement lines (docs/execution.md, "Executable lines"): a small program on
 * syn, the Rust ecosystem's own parser (test/data/fidelity/rust-statement-lines), not the engine's
 * tree-sitter walk, so engine and native apply the rule through independent code and parsers.
 * Built once per test process, outside the tree; the locked syn comes from crates.io on a fresh machine
 * (a registry CI reaches), from the host's cargo cache afterwards.
 */
let built: string | { unavailable: string } | undefined;

/** The finder's executable, or why it cannot be built here. */
export function rustStatementLineFinder(): string | { unavailable: string } {
  if (built) return built;
  const dir = path.join(REPO_ROOT, 'test', 'data', 'fidelity', 'rust-statement-lines');
  const target = path.join(os.tmpdir(), `xrt-rust-statement-lines-${process.pid}`);
  const r = spawnSync('cargo', ['build', '--release', '--locked', '--manifest-path', path.join(dir, 'Cargo.toml')], {
    env: { ...process.env, CARGO_TARGET_DIR: target },
    encoding: 'utf8',
    timeout: 600_000,
  });
  built = r.status === 0 ? path.join(target, 'release', 'rust-statement-lines') : { unavailable: `the native statement-line finder (syn) does not build: ${`${r.stdout ?? ''}${r.stderr ?? ''}`.slice(-500)}` };
  process.once('exit', () => fs.rmSync(target, { recursive: true, force: true }));
  return built;
}

/** Lines of a Rust file on which a statement starts, by syn; throws when syn cannot parse it. */
export function nativeRustStatementLines(finder: string, file: string): Set<number> {
  const r = spawnSync(finder, [file], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`syn could not parse ${file}: ${r.stdout}${r.stderr}`);
  return new Set(r.stdout.split('\n').filter(Boolean).map(Number));
}
