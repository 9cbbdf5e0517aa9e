import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
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

let built: string | undefined;

/** The reference built once per test process (`go run` would link it again on every call). */
function binary(): string {
  if (built && fs.existsSync(built)) return built;
  const main = path.join(REPO_ROOT, 'test', 'helpers', 'go-cover-lines', 'main.go');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-go-cover-lines-'));
  const out = path.join(dir, 'go-cover-lines');
  const r = spawnSync('go', ['build', '-o', out, main], {
    cwd: path.dirname(main),
    // A plain Go program of the standard library: no module, no network, whatever the caller's GOFLAGS.
    env: { ...process.env, GOFLAGS: '', GOPROXY: 'off', GOTOOLCHAIN: 'local', GO111MODULE: 'auto' },
    encoding: 'utf8',
    timeout: 300_000,
  });
  if (r.status !== 0) throw new Error(`cannot build go-cover-lines (${r.status}):\n${r.stdout}${r.stderr}`);
  process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  return (built = out);
}

/** Runs the go/ast reference on a profile and the focal file; throws with its output on failure. */
export function goNativeLines(profile: string, focalFile: string, importPath: string, from = 1, to = 1 << 30): GoNativeLines {
  const r = spawnSync(binary(), ['-profile', profile, '-file', focalFile, '-import', importPath, '-from', String(from), '-to', String(to)], { encoding: 'utf8', timeout: 120_000 });
  if (r.status !== 0) throw new Error(`go-cover-lines failed (${r.status}):\n${r.stdout}${r.stderr}`);
  return JSON.parse(r.stdout) as GoNativeLines;
}
