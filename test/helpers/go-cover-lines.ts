import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { REPO_ROOT } from './paths';

/** What test/helpers/go-cover-lines/main.go (go/ast, no engine code) makes of a cover profile. */
export interface GoNativeLines {
  executable: number[];
  covered: number[];
  /** Every line a block of the file spans in the range: the older rule, for before/after figures. */
  blockLines: number[];
  /** Every counted statement start of the file, `line.column` (byte columns, as go/token). */
  starts: string[];
  /** Blocks whose statement count differs from cover's own (a bare `;`, a split label). */
  disagreements: string[];
}

/** Runs the go/ast reference on a profile and the focal file; throws with Go's output on failure. */
export function goNativeLines(profile: string, focalFile: string, importPath: string, from = 1, to = 1 << 30): GoNativeLines {
  const main = path.join(REPO_ROOT, 'test', 'helpers', 'go-cover-lines', 'main.go');
  const r = spawnSync('go', ['run', main, '-profile', profile, '-file', focalFile, '-import', importPath, '-from', String(from), '-to', String(to)], {
    cwd: path.dirname(main),
    // A plain Go program of the standard library: no module, no network, whatever the caller's GOFLAGS.
    env: { ...process.env, GOFLAGS: '', GOPROXY: 'off', GOTOOLCHAIN: 'local', GO111MODULE: 'auto' },
    encoding: 'utf8',
    timeout: 300_000,
  });
  if (r.status !== 0) throw new Error(`go-cover-lines failed (${r.status}):\n${r.stdout}${r.stderr}`);
  return JSON.parse(r.stdout) as GoNativeLines;
}
