import { strict as assert } from 'node:assert';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import type { BenchmarkRun } from '../../src/engine/tools/run-benchmark';
import type { FocalCoverage } from '../../src/engine/tools/coverage';
import type { FocalFunctions } from '../../src/engine/tools/focal-functions';
import type { GeneratedTests } from '../../src/engine/tools/generate-tests';
import type { ToolScore } from '../../src/engine/tools/tool-score';
import type { ToolMutants, ToolMutation } from '../../src/engine/tools/mutants';
import { generatedTest, treeDigest } from '../helpers/evaluate';
import { goNativeLines } from '../helpers/go-cover-lines';
import { memorySandboxParent } from '../../src/engine/execute/memory-folder';
import { CLI, fixture } from '../helpers/paths';
import { hasTool, skipBecause } from '../helpers/skip';

/**
 * `xrepotest mcp` as an agent meets it (issue 18, parts 3 and 4): the SDK's own client spawns the
 * bundled CLI over stdio on a copy of the Go fixture, lists the tools, scores tests (checked against
 * Go's own coverage of the same test, run natively here), reads coverage back, runs a small benchmark
 * with progress notifications, and is refused what it may not do: an unknown function, paths out of
 * the workspace (directly or through links), malformed arguments, and secrets in what comes back.
 */

/** Not shaped like any provider's key, so only the environment's secret-looking names can tell it is one. */
const KEY = 'xrt-mcp-test-secret-6f1d2c9a';
/**
 * Secrets only the workspace holds (not in the server's environment, not shaped like a token): a
 * database URL under a name that says nothing of secrets, and one in a nested .env file.
 */
const DB_URL = 'postgres://app:Vq8sLw2Nx7Rk4Tz@db.internal:5432/inventory';
const SALT = 'nested-local-Hp3Jd9Qm5Wc2';

/**
 * Whether `text` holds `secret` in any simple encoding: plain or reversed, or within any run of
 * base64 (standard or URL-safe, decoded from each of the four character offsets, so at any byte
 * alignment) or hex (either nibble offset). The secret's middle is looked for: an encoding's
 * boundary characters may carry a bit of its first and last bytes.
 */
function leaks(text: string, secret: string): string | null {
  const middle = secret.slice(2, -2);
  const reversed = [...middle].reverse().join('');
  if (text.includes(middle)) return 'plain';
  if (text.includes(reversed)) return 'reversed';
  for (const run of text.match(/[A-Za-z0-9+/_-]{12,}/g) ?? [])
    for (let k = 0; k < 4; k++) if (Buffer.from(run.slice(k).replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('latin1').includes(middle)) return `base64 ${run}`;
  for (const run of text.match(/[0-9a-fA-F]{12,}/g) ?? []) for (let k = 0; k < 2; k++) if (Buffer.from(run.slice(k), 'hex').toString('latin1').includes(middle)) return `hex ${run}`;
  return null;
}
const GO_ENV = { GOFLAGS: '-mod=mod', GOPROXY: 'off', GOTOOLCHAIN: 'local' };

interface Connected {
  client: Client;
  stderr: string[];
  /** The server's process. */
  pid: number;
  close(): Promise<void>;
}

async function connect(workspace: string, runs: string, extraArgs: string[] = [], env: Record<string, string> = {}): Promise<Connected> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--workspace', workspace, '--runs-dir', runs, '--executor', 'local', ...extraArgs],
    env: { ...(process.env as Record<string, string>), ...env },
    stderr: 'pipe',
  });
  const stderr: string[] = [];
  transport.stderr?.on('data', (c: Buffer) => stderr.push(c.toString('utf8')));
  const client = new Client({ name: 'xrepotest-integration-test', version: '0' });
  await client.connect(transport);
  return { client, stderr, pid: transport.pid!, close: () => client.close() };
}

/** The function's lines in the file, found by its signature and its closing brace (gofmt-ed code). */
function linesOf(file: string, signature: string): { from: number; to: number } {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const from = lines.findIndex((l) => l.startsWith(signature)) + 1;
  const to = lines.findIndex((l, i) => i >= from && l === '}') + 1;
  assert.ok(from > 0 && to > from, `${signature} in ${file}`);
  return { from, to };
}

/**
 * Go's own verdict on a test of the fixture: `go test -cover` in a throwaway copy with only that test
 * file in the package, the profile read by Go's own parser (test/helpers/go-cover-lines).
 */
function nativeGo(testCode: string, range: { from: number; to: number }): { passed: boolean; executable: number[]; covered: number[] } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-mcp-native-'));
  try {
    fs.cpSync(fixture('inventory-go'), dir, { recursive: true });
    for (const f of fs.readdirSync(dir)) if (f.endsWith('_test.go')) fs.rmSync(path.join(dir, f));
    fs.writeFileSync(path.join(dir, 'native_test.go'), testCode);
    const r = spawnSync('go', ['test', '-count=1', '-covermode=count', '-coverprofile=cover.out', '.'], { cwd: dir, env: { ...process.env, ...GO_ENV }, encoding: 'utf8' });
    assert.ok(fs.existsSync(path.join(dir, 'cover.out')), r.stdout + r.stderr);
    const native = goNativeLines(path.join(dir, 'cover.out'), path.join(dir, 'item.go'), 'example.com/inventory/item.go', range.from, range.to);
    return { passed: r.status === 0, executable: native.executable, covered: native.covered };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function textOf(r: CallToolResult): string {
  return r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

describe('xrepotest mcp: the tools over the Model Context Protocol', function () {
  this.timeout(900_000);
  let top = '';
  let ws = '';
  let outside = '';
  let runs = '';
  let server: Connected;
  let digest = '';
  let status: { from: number; to: number };

  before(async function () {
    if (!hasTool('go', ['version'])) skipBecause(this, 'go is needed to run the Go fixture\'s tests (scripts/setup.sh installs it)');
    assert.ok(fs.existsSync(CLI), `${CLI} is missing: run npm run build`);
    top = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-mcp-'));
    ws = path.join(top, 'inventory-go');
    fs.cpSync(fixture('inventory-go'), ws, { recursive: true });
    // A repository may hold a secret; the sandbox copy holds it too, so a test can print it.
    fs.writeFileSync(path.join(ws, '.env'), `OPENAI_API_KEY=${KEY}\nDATABASE_URL="${DB_URL}"\n`);
    fs.mkdirSync(path.join(ws, 'config'));
    fs.writeFileSync(path.join(ws, 'config', '.env.local'), `# local overrides\nexport SIGNING_SALT=${SALT}\n`);
    outside = path.join(top, 'outside');
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(outside, 'secret.go'), 'package secret\n\n// Leak is outside the workspace.\nfunc Leak() int {\n\treturn 1\n}\n');
    fs.writeFileSync(path.join(outside, 'tasks.jsonl'), '');
    runs = path.join(top, 'runs');
    status = linesOf(path.join(ws, 'item.go'), 'func (it Item) Status(');
    digest = treeDigest(ws);
    server = await connect(ws, runs, [], { OPENAI_API_KEY: KEY });
  });

  after(async () => {
    await server?.close();
    if (top) fs.rmSync(top, { recursive: true, force: true });
  });

  const call = async (name: string, args: Record<string, unknown>, onprogress?: (p: Progress) => void): Promise<CallToolResult> =>
    (await server.client.callTool({ name, arguments: args }, undefined, { timeout: 600_000, resetTimeoutOnProgress: true, ...(onprogress ? { onprogress } : {}) })) as CallToolResult;

  it('lists the six tools with their schemas, their results\' schemas and what each may do', async () => {
    const { tools } = await server.client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ['focal_functions', 'score_test', 'generate_tests', 'coverage', 'run_benchmark', 'mutants']);
    // Every tool returns structured results, and says their shape (the SDK's client checks each result against it from here on).
    for (const t of tools) assert.equal(t.outputSchema?.type, 'object', `${t.name}: outputSchema`);
    assert.ok(tools.find((t) => t.name === 'mutants')?.outputSchema?.required?.includes('survivors'));
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    assert.deepEqual(byName.score_test.inputSchema.required, ['file', 'function', 'testCode']);
    assert.equal(byName.score_test.annotations?.readOnlyHint, false);
    assert.equal(byName.coverage.annotations?.readOnlyHint, true);
    assert.equal(byName.generate_tests.annotations?.openWorldHint, true);
    assert.match(byName.score_test.description ?? '', /focal_functions lists a file's functions/, 'other tools are named in MCP style');
  });

  it('scores a passing test: compiled, passed, calls the function, and the focal coverage Go itself measures', async () => {
    const test = generatedTest('go', 'pass');
    const native = nativeGo(test, status);
    assert.ok(native.passed && native.covered.length > 0 && native.covered.length < native.executable.length, 'the oracle: a passing test that leaves some lines unrun');
    const r = await call('score_test', { file: 'item.go', function: 'Status', testCode: test });
    assert.ok(!r.isError, textOf(r));
    const s = r.structuredContent as unknown as ToolScore;
    assert.deepEqual([s.compiled, s.passed, s.invoked], [true, true, true]);
    assert.deepEqual(s.coverage.executableLines, native.executable);
    assert.deepEqual(s.coverage.coveredLines, native.covered);
    assert.deepEqual(s.coverage.uncoveredLines, native.executable.filter((l) => !native.covered.includes(l)));
    // The cases the test has (expired, out of stock, ok) leave the "expiring" branch unrun.
    const expiring = fs.readFileSync(path.join(ws, 'item.go'), 'utf8').split('\n').findIndex((l) => l.includes('return "expiring"')) + 1;
    assert.ok(s.coverage.uncoveredLines.includes(expiring), `line ${expiring} (return "expiring") is not run`);
    assert.equal(s.failureCategory, null);
    assert.equal(s.testsRan, s.testsPassed);
    assert.match(textOf(r), /^Test of Status \(item\.go:\d+-\d+\): PASSED\./);
  });

  it('scores a failing test: the category, the failing case and the runner\'s message in workspace terms', async () => {
    const test = generatedTest('go', 'fail');
    const native = nativeGo(test, status);
    assert.equal(native.passed, false, 'the oracle: Go fails this test');
    const r = await call('score_test', { file: 'item.go', function: 'Status', testCode: test });
    assert.ok(!r.isError, textOf(r));
    const s = r.structuredContent as unknown as ToolScore;
    assert.deepEqual([s.compiled, s.passed, s.invoked], [true, false, true]);
    assert.equal(s.failureCategory, 'logic-assertion');
    assert.deepEqual(s.coverage.coveredLines, native.covered);
    assert.deepEqual(s.failingCases.map((c) => c.name), ['TestStatusWrong']);
    assert.match(s.runnerMessage ?? '', /want "expired"/);
    assert.ok(!JSON.stringify(s).includes('xrt-sandbox-'), 'no sandbox path reaches the agent');
  });

  it('scores a test that does not compile (CSR) and one that never calls the function (IR)', async () => {
    const broken = (await call('score_test', { file: 'item.go', function: 'Status', testCode: generatedTest('go', 'nocompile') })).structuredContent as unknown as ToolScore;
    assert.deepEqual([broken.compiled, broken.passed, broken.coverage.coveredLines.length], [false, false, 0]);
    // A string where Status takes an int: Appendix J.2 files a type mismatch under Type System, not syntax.
    assert.equal(broken.failureCategory, 'type-system-memory');
    assert.match(broken.runnerMessage ?? '', /cannot use "ten"|mismatched types|untyped string/);
    const noCall = (await call('score_test', { file: 'item.go', function: 'Status', testCode: generatedTest('go', 'noinvoke') })).structuredContent as unknown as ToolScore;
    assert.deepEqual([noCall.compiled, noCall.passed, noCall.invoked], [true, true, false]);
    assert.deepEqual(noCall.coverage.coveredLines, [], 'it never runs Status');
  });

  it('reads the last scoring back as coverage and as the function\'s current score', async () => {
    const test = generatedTest('go', 'pass');
    await call('score_test', { file: 'item.go', function: 'Status', testCode: test });
    const native = nativeGo(test, status);
    const cov = (await call('coverage', { file: 'item.go', function: 'Status' })).structuredContent as unknown as FocalCoverage;
    assert.deepEqual([cov.known, cov.stale, cov.passed], [true, false, true]);
    assert.deepEqual(cov.coverage?.coveredLines, native.covered);
    assert.equal(cov.author?.model, 'xrepotest-integration-test', 'the scoring is labelled with the agent\'s name');
    const never = (await call('coverage', { file: 'item.go', function: 'CategoryLabel' })).structuredContent as unknown as FocalCoverage;
    assert.equal(never.known, false);
    const listed = (await call('focal_functions', { file: 'item.go' })).structuredContent as unknown as FocalFunctions;
    const statusRow = listed.functions.find((f) => f.name === 'Status');
    assert.deepEqual(statusRow?.score?.coverage.coveredLines, native.covered);
    assert.equal(listed.functions.find((f) => f.name === 'CategoryLabel')?.score, undefined);
  });

  it('never redacts less than the secrets it knows: a test printing the repository\'s .env gets «redacted» back, and so do the kept records', async () => {
    const leak = 'package inventory\n\nimport (\n\t"os"\n\t"testing"\n)\n\nfunc TestLeak(t *testing.T) {\n\tb, _ := os.ReadFile(".env")\n\tif (Item{Quantity: 1}).Status(0) != "" {\n\t\tt.Errorf("env: %s", b)\n\t}\n}\n';
    const r = await call('score_test', { file: 'item.go', function: 'Status', testCode: leak });
    assert.ok(!r.isError, textOf(r));
    const s = r.structuredContent as unknown as ToolScore;
    assert.equal(s.passed, false);
    assert.match(s.runnerMessage ?? '', /env: OPENAI_API_KEY=«redacted»/, 'the test did read the file: the message says where the key was');
    assert.ok(!JSON.stringify(r).includes(KEY), 'the key is in no part of the result');
    assert.ok(!fs.readFileSync(path.join(runs, 'scorings', 'results.jsonl'), 'utf8').includes(KEY), 'nor in the kept records');
  });

  it('returns none of the workspace\'s .env values, printed plain, base64, hex or reversed by a test, nor keeps them', async () => {
    const leak = `package inventory

import (
	"encoding/base64"
	"encoding/hex"
	"os"
	"testing"
)

func TestLeakEncoded(t *testing.T) {
	env, _ := os.ReadFile(".env")
	local, _ := os.ReadFile("config/.env.local")
	all := append(append([]byte{}, env...), local...)
	rev := []rune(string(all))
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	if (Item{Quantity: 1}).Status(0) != "" {
		t.Errorf("plain: %s", all)
		t.Errorf("b64: %s", base64.StdEncoding.EncodeToString(all))
		t.Errorf("b64url: %s", base64.URLEncoding.EncodeToString(local[3:]))
		t.Errorf("hex: %s", hex.EncodeToString(all))
		t.Errorf("HEX: %X", local)
		t.Errorf("rev: %s", string(rev))
	}
}
`;
    const r = await call('score_test', { file: 'item.go', function: 'Status', testCode: leak });
    assert.ok(!r.isError, textOf(r));
    const s = r.structuredContent as unknown as ToolScore;
    assert.equal(s.passed, false);
    const returned = JSON.stringify(r);
    for (const printed of ['plain: ', 'b64: ', 'b64url: ', 'hex: ', 'HEX: ', 'rev:']) assert.ok(returned.includes(printed), `the test printed ${printed}: ${s.runnerMessage}`);
    assert.match(returned, /DATABASE_URL=\\"«redacted»\\"/, 'the file was read: the message says where the value was');
    for (const secret of [KEY, DB_URL, SALT]) assert.equal(leaks(returned, secret), null, `${secret} comes back in ${returned}`);
    const kept = fs.readFileSync(path.join(runs, 'scorings', 'results.jsonl'), 'utf8');
    for (const secret of [KEY, DB_URL, SALT]) assert.equal(leaks(kept, secret), null, `${secret} is kept`);
  });

  it('ran nothing in the workspace: its files are as they were', () => {
    assert.equal(treeDigest(ws), digest);
  });

  it('returns the mutants a passing test does not catch, with their diffs, from score_test and from mutants on the kept test; progress ends at its total', async () => {
    const progress: Progress[] = [];
    const r = await call('score_test', { file: 'item.go', function: 'Status', testCode: generatedTest('go', 'pass'), mutants: true }, (p) => progress.push(p));
    assert.ok(!r.isError, textOf(r));
    const m = (r.structuredContent as unknown as { mutation: ToolMutation }).mutation;
    assert.equal(m.ran, true, m.reason ?? '');
    assert.ok(m.viable > 0 && m.killed > 0, `${m.killed} of ${m.viable} caught`);
    assert.equal(m.killed + m.timedOut + m.survived, m.viable);
    // The test never runs Status with a reorder level or a shelf capacity: a boundary change there survives.
    assert.ok(m.survivors.length > 0 && m.survivors.length === m.survived, `${m.survived} survived`);
    for (const s of m.survivors) {
      assert.ok(s.line >= status.from && s.line <= status.to, `line ${s.line} in Status`);
      assert.match(s.diff, new RegExp(`^--- a/item\\.go\n\\+\\+\\+ b/item\\.go\n@@ -${s.line}(,\\d+)? \\+${s.line}(,\\d+)? @@\n-`));
      const [minus, plus] = [s.diff.split('\n').filter((l) => /^-[^-]/.test(l)).join('\n'), s.diff.split('\n').filter((l) => /^\+[^+]/.test(l)).join('\n')];
      assert.ok(minus.includes(s.original) && plus.includes(s.replacement) && minus !== plus, s.diff);
    }
    assert.match(textOf(r), /survived: the test still passes with each change below/);
    const last = progress[progress.length - 1];
    assert.ok(last && last.total !== undefined && last.progress === last.total, `the last progress is its total: ${JSON.stringify(last)}`);
    // The same survivors from the mutants tool, on the test now kept for Status (mutant ids are a hash of the edit).
    const kept = (await call('mutants', { file: 'item.go', function: 'Status' })).structuredContent as unknown as ToolMutants;
    assert.deepEqual([kept.test.source, kept.test.passed], ['kept', true]);
    assert.deepEqual(kept.survivors.map((s) => s.id).sort(), m.survivors.map((s) => s.id).sort());
    // A failing test given: scored, and no mutant is run, with the reason.
    const failing = (await call('mutants', { file: 'item.go', function: 'Status', testCode: generatedTest('go', 'fail') })).structuredContent as unknown as ToolMutants;
    assert.deepEqual([failing.test.source, failing.test.passed, failing.ran, failing.mutants], ['given', false, false, 0]);
    assert.match(failing.reason ?? '', /does not pass/);
  });

  it('gives the best passing test\'s coverage and the union of every passing test\'s lines', async () => {
    const expiring = 'package inventory\n\nimport "testing"\n\nfunc TestStatusExpiring(t *testing.T) {\n\tif got := (Item{Quantity: 5, Expires: 12}).Status(10); got != "expiring" {\n\t\tt.Fatal(got)\n\t}\n}\n';
    const one = (await call('score_test', { file: 'item.go', function: 'Status', testCode: expiring })).structuredContent as unknown as ToolScore;
    assert.equal(one.passed, true);
    const pass = nativeGo(generatedTest('go', 'pass'), status);
    const cov = (await call('coverage', { file: 'item.go', function: 'Status' })).structuredContent as unknown as FocalCoverage;
    // The latest scoring is the expiring test; the best is the table test, which runs more lines.
    assert.deepEqual(cov.coverage?.coveredLines, one.coverage.coveredLines);
    assert.deepEqual(cov.best?.coverage.coveredLines, pass.covered);
    const union = [...new Set([...pass.covered, ...one.coverage.coveredLines])].sort((a, b) => a - b);
    assert.deepEqual(cov.union?.coveredLines, union);
    assert.ok(union.length > pass.covered.length, 'the expiring test adds a line');
    assert.ok((cov.union?.tests ?? 0) >= 2);
  });

  it('sends progress notifications for a small benchmark, and its numbers are those of the run folder', async () => {
    const progress: Progress[] = [];
    const r = await call('run_benchmark', { limit: 2, run: 'two' }, (p) => progress.push(p));
    assert.ok(!r.isError, textOf(r));
    const run = r.structuredContent as unknown as BenchmarkRun;
    assert.equal(run.runDir, path.join(runs, 'bench', 'two'));
    assert.deepEqual([run.tasks, run.results, run.interrupted], [2, 2, false]);
    assert.ok(progress.length >= 2, `${progress.length} progress notifications`);
    for (let i = 1; i < progress.length; i++) assert.ok(progress[i].progress > progress[i - 1].progress, `progress grows: ${progress.map((p) => p.progress).join(', ')}`);
    assert.ok(progress.every((p) => p.total === 2 && p.progress <= 2));
    assert.equal(progress[progress.length - 1].progress, 2);
    assert.ok(progress.some((p) => / in inventory-go: /.test(p.message ?? '')), 'a task\'s phase is named');
    const results = fs.readFileSync(path.join(run.runDir, 'results.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(results.length, 2);
    assert.ok(results.every((x) => x.xrt.provider === 'baseline' && x.xrt.executor.kind === 'local'));
    const compiled = (100 * results.filter((x) => x.checks[0].compilation).length) / results.length;
    const passed = (100 * results.filter((x) => x.checks[0].tests).length) / results.length;
    assert.deepEqual([run.overall.samples, run.overall.csr, run.overall.tpr], [2, compiled, passed]);
    assert.ok(run.reports.html && fs.existsSync(run.reports.html));
    // The same run name resumes: nothing is run again.
    const again = (await call('run_benchmark', { limit: 2, run: 'two' })).structuredContent as unknown as BenchmarkRun;
    assert.deepEqual([again.results, again.resumed], [2, 2]);
  });

  it('generates and scores a test with the configured provider (the offline baseline here), and keeps it as the current score', async () => {
    const r = await call('generate_tests', { file: 'item.go', function: 'Status' });
    assert.ok(!r.isError, textOf(r));
    const g = r.structuredContent as unknown as GeneratedTests;
    assert.deepEqual([g.provider, g.baseline, g.tests.length], ['baseline', true, 1]);
    const [t] = g.tests;
    assert.match(t.testCode, /func Test\w+\(t \*testing\.T\)/);
    assert.deepEqual([t.score.compiled, t.score.invoked, t.score.hasAssertions], [true, true, false], 'a smoke test that calls Status');
    assert.match(textOf(r), /written by the offline baseline/);
    const cov = (await call('coverage', { file: 'item.go', function: 'Status' })).structuredContent as unknown as FocalCoverage;
    assert.equal(cov.author?.provider, 'baseline');
    assert.deepEqual(cov.coverage?.coveredLines, t.score.coverage.coveredLines);
  });

  it('stops a call the client cancels: the test is killed, its sandbox removed, nothing kept, and the server goes on', async () => {
    const kept = (): number => fs.readFileSync(path.join(runs, 'scorings', 'results.jsonl'), 'utf8').trim().split('\n').length;
    const before = kept();
    const slow = 'package inventory\n\nimport (\n\t"testing"\n\t"time"\n)\n\nfunc TestSlow(t *testing.T) {\n\ttime.Sleep(300 * time.Second)\n\t_ = Item{}.Status(0)\n}\n';
    // On disk, or in memory where the local executor makes Go's sandboxes (execute/memory-folder.ts).
    const folders = [os.tmpdir(), memorySandboxParent()].filter((d): d is string => !!d);
    const sandboxes = (): string[] => folders.flatMap((d) => fs.readdirSync(d).filter((n) => new RegExp(`^xrt-sandbox-(ns\\d+-)?${server.pid}-`).test(n)));
    const controller = new AbortController();
    const started = Date.now();
    let whileRunning: string[] = [];
    const running = server.client.callTool({ name: 'score_test', arguments: { file: 'item.go', function: 'Status', testCode: slow } }, undefined, {
      signal: controller.signal,
      timeout: 600_000,
      onprogress: (p) => {
        if (!/^Status: test$/.test(p.message ?? '')) return;
        whileRunning = sandboxes();
        controller.abort();
      },
    });
    await assert.rejects(running);
    assert.equal(whileRunning.length, 1, 'the test ran in a sandbox of the server\'s');
    for (let i = 0; i < 100 && sandboxes().length; i++) await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(sandboxes(), [], 'the cancelled run\'s sandbox is removed');
    assert.ok(Date.now() - started < 120_000, 'the test was stopped, not waited for');
    assert.equal(kept(), before, 'nothing is kept for a cancelled call');
    const after = await call('coverage', { file: 'item.go', function: 'Status' });
    assert.ok(!after.isError, textOf(after));
  });

  describe('what an agent may not do', () => {
    const refused = async (name: string, args: Record<string, unknown>, message: RegExp): Promise<void> => {
      const r = await call(name, args);
      assert.equal(r.isError, true, `${name} ${JSON.stringify(args)} was not refused: ${textOf(r)}`);
      assert.match(textOf(r), message);
    };

    it('names the functions there are when it asks for one that is not', async () => {
      await refused('score_test', { file: 'item.go', function: 'Stat', testCode: 'package inventory' }, /no function named "Stat" in item\.go; its testable functions are Status \(line \d+\), GetLabel/);
      await refused('coverage', { file: 'report.go', function: 'Status' }, /no function named "Status" in report\.go/);
    });

    it('reaches no file outside the workspace, by path or through a link', async () => {
      await refused('score_test', { file: '../outside/secret.go', function: 'Leak', testCode: 'package secret' }, /^file: \.\.\/outside\/secret\.go is outside the workspace; pass a file inside the workspace/);
      await refused('focal_functions', { file: path.join(outside, 'secret.go') }, /is outside the workspace/);
      fs.symlinkSync(path.join(outside, 'secret.go'), path.join(ws, 'escape.go'));
      fs.symlinkSync(outside, path.join(ws, 'linked'));
      await refused('score_test', { file: 'escape.go', function: 'Leak', testCode: 'package secret' }, /^file: escape\.go leads outside the workspace through a symbolic link/);
      await refused('focal_functions', { file: 'linked/secret.go' }, /leads outside the workspace through a symbolic link/);
      await refused('run_benchmark', { dataset: 'linked/tasks.jsonl' }, /^dataset: linked\/tasks\.jsonl leads outside the workspace through a symbolic link/);
      assert.ok(!textOf(await call('focal_functions', { file: 'escape.go' })).includes(outside), 'the link\'s target is not said');
    });

    it('gets a clear error for malformed arguments, naming the field and the arguments there are', async () => {
      await refused('score_test', { file: 'item.go', function: 'Status' }, /^arguments\.testCode: must be present, got nothing\. Its arguments: file \(string, required\)/);
      await refused('score_test', { file: 'item.go', function: 'Status', testCode: 'x', timeoutSeconds: 9999 }, /^arguments\.timeoutSeconds: is not a known field/);
      await refused('run_benchmark', { run: '../../etc' }, /^arguments\.run: must match pattern/);
      await assert.rejects(server.client.callTool({ name: 'run_everything', arguments: {} }), (e: Error) => {
        assert.match(e.message, /unknown tool "run_everything": the tools are focal_functions, score_test/);
        // Said once: the client adds "MCP error -32602:" to what the server sends.
        assert.equal(e.message.match(/MCP error/g)?.length, 1, e.message);
        return true;
      });
    });

    it('never sees an API key in an error: a provider that echoes it is redacted', async () => {
      let seenKey = '';
      const provider = http.createServer((req, res) => {
        seenKey = String(req.headers.authorization ?? '');
        req.resume();
        req.on('end', () => {
          res.writeHead(401, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: { message: `Incorrect API key provided: ${KEY}` } }));
        });
      });
      await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(provider.address() as AddressInfo).port}/v1`;
      const other = await connect(ws, path.join(top, 'runs-provider'), ['--provider', 'openai-compatible', '--base-url', url, '--model', 'm', '--retries', '0', '--no-cache'], { OPENAI_COMPATIBLE_API_KEY: KEY });
      try {
        const r = (await other.client.callTool({ name: 'generate_tests', arguments: { file: 'item.go', function: 'Status' } }, undefined, { timeout: 300_000 })) as CallToolResult;
        assert.ok(seenKey.includes(KEY), 'the provider was asked with the key');
        assert.equal(r.isError, true, textOf(r));
        assert.match(textOf(r), /the openai-compatible provider did not answer: .*401/);
        assert.ok(!JSON.stringify(r).includes(KEY), textOf(r));
        assert.ok(!other.stderr.join('').includes(KEY), 'nor in the server\'s log');
      } finally {
        await other.close();
        provider.closeAllConnections();
        await new Promise<void>((resolve) => provider.close(() => resolve()));
      }
    });
  });

  it('refuses to keep its runs inside the workspace (they would be copied into every sandbox)', () => {
    const r = spawnSync(process.execPath, [CLI, 'mcp', '--workspace', ws, '--runs-dir', path.join(ws, 'runs')], { encoding: 'utf8', input: '' });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /--runs-dir .* is inside the workspace .*: keep scorings and benchmark runs outside it/);
  });
});

/**
 * The server's own process spoken to over raw stdio: JSON-RPC messages one a line, as the MCP stdio
 * transport defines them, so a message can be as large (or as broken) as an attacker makes it.
 */
class RawMcpProcess {
  private readonly child;
  private readonly answers = new Map<number | string | null, Record<string, unknown>>();
  private readonly waiters = new Map<number | string | null, () => void>();
  readonly exited: Promise<number | null>;
  stderr = '';

  constructor(args: string[]) {
    this.child = spawn(process.execPath, [CLI, 'mcp', ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stderr.on('data', (c: Buffer) => (this.stderr += c.toString('utf8')));
    let pending = '';
    this.child.stdout.on('data', (c: Buffer) => {
      pending += c.toString('utf8');
      for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
        const message = JSON.parse(pending.slice(0, nl)) as Record<string, unknown>;
        pending = pending.slice(nl + 1);
        const id = message.id as number | string | null | undefined;
        if (id === undefined) continue;
        this.answers.set(id, message);
        this.waiters.get(id)?.();
      }
    });
    this.exited = new Promise((resolve) => this.child.on('exit', (code) => resolve(code)));
    // A write to a process that already left must not crash the test: the assertion says what happened.
    this.child.stdin.on('error', () => undefined);
  }

  send(line: string): void {
    this.child.stdin.write(line + '\n');
  }

  /** The answer to request `id`, or a failure saying the server left without one. */
  async answer(id: number | string | null): Promise<Record<string, unknown>> {
    const got = new Promise<void>((resolve) => (this.answers.has(id) ? resolve() : this.waiters.set(id, resolve)));
    const left = this.exited.then((code) => {
      throw new Error(`the server exited with status ${code} without answering request ${id}; its standard error:\n${this.stderr}`);
    });
    await Promise.race([got, left]);
    return this.answers.get(id)!;
  }

  async initialize(): Promise<void> {
    this.send(JSON.stringify({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } }));
    assert.ok((await this.answer('init')).result, 'initialized');
    this.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  }

  async close(): Promise<number | null> {
    this.child.stdin.end();
    return this.exited;
  }
}

describe('xrepotest mcp: a message too large for the server', function () {
  this.timeout(120_000);
  let top = '';
  let server: RawMcpProcess | undefined;
  beforeEach(() => {
    top = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-mcp-large-'));
    fs.mkdirSync(path.join(top, 'ws'));
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
    fs.rmSync(top, { recursive: true, force: true });
  });
  const start = (extra: string[] = []): RawMcpProcess => new RawMcpProcess(['--workspace', path.join(top, 'ws'), '--runs-dir', path.join(top, 'runs'), '--executor', 'local', ...extra]);
  const toolsList = async (s: RawMcpProcess, id: number): Promise<void> => {
    s.send(JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list' }));
    const listed = (await s.answer(id)).result as { tools: unknown[] };
    assert.equal(listed.tools.length, 6, 'the next request on the same connection is answered');
  };

  it('refuses a 40 MB call with a JSON-RPC error naming the limit, answers the next request, and exits 0 only when the client leaves', async () => {
    server = start();
    await server.initialize();
    // The SDK's client puts the id after the params, so the id is at the very end of 40 MB.
    const huge = `{"method":"tools/call","params":{"name":"score_test","arguments":{"file":"a.go","function":"F","testCode":"${'x'.repeat(40 * 1024 * 1024)}"}},"jsonrpc":"2.0","id":2}`;
    server.send(huge);
    const refused = await server.answer(2);
    const error = refused.error as { code: number; message: string };
    assert.equal(error.code, -32600, JSON.stringify(refused));
    assert.match(error.message, /^message of 41943\d\d\d bytes is over the limit of 10485760 bytes \(--max-message-mb 10\); nothing of it was read/);
    await toolsList(server, 3);
    assert.match(server.stderr, /refused a message of 41943\d\d\d bytes/, 'the refusal is in the log');
    assert.equal(await server.close(), 0);
  });

  it('takes its limit from --max-message-mb, finds the id at a message\'s start, and answers a broken line with a parse error', async () => {
    server = start(['--max-message-mb', '1']);
    await server.initialize();
    server.send(`{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"focal_functions","arguments":{"file":"${'y'.repeat(3 * 1024 * 1024)}"}}}`);
    const refused = (await server.answer('big')).error as { code: number; message: string } | undefined;
    assert.match(refused?.message ?? 'no error', /over the limit of 1048576 bytes \(--max-message-mb 1\)/);
    // A line that is not JSON gets the parse error JSON-RPC prescribes (its id unknown: null).
    server.send('{"jsonrpc":"2.0","id":7,"method":');
    const parseError = (await server.answer(null)).error as { code: number; message: string } | undefined;
    assert.equal(parseError?.code, -32700, JSON.stringify(parseError));
    // Under the limit, a whole call goes through as before.
    server.send(JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'focal_functions', arguments: { file: 'z'.repeat(512 * 1024) } } }));
    const small = (await server.answer(5)).result as CallToolResult;
    assert.equal(small.isError, true);
    assert.match(textOf(small), /^arguments\.file: must NOT have more than 4096 characters/, 'read whole and answered by the tool');
    await toolsList(server, 6);
  });
});
