import { strict as assert } from 'node:assert';
import { spawn, spawnSync } from 'node:child_process';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { escapeMarkdown } from '../../src/engine/report/markdown';
import { dedupeSlots } from '../../src/engine/report/dedupe';
import { acquireRunLock, processStartOf, RUN_LOCK_NAME, RunLockedError, type LockOwner } from '../../src/engine/store/run-lock';
import type { ResultRecord } from '../../src/engine/store/results';
import { CLI, REPO_ROOT } from '../helpers/paths';
import { pidNamespaceId } from '../../src/engine/util/process-namespace';
import { tmpDirPerTest, writeJsonl } from '../helpers/run-folders';

function cli(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', cwd: REPO_ROOT, timeout: 300_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A result row as `run`/`bench` write it, with the fields the report reads. */
function row(o: { task: number; passed: boolean; sample?: number; round?: number; model?: string; repo?: string; language?: string }): ResultRecord {
  const language = o.language ?? 'go';
  return {
    task_id: o.task,
    id: `${language}-${o.task}`,
    function_name: 'f',
    file_path: `${o.repo ?? 'repo'}/f.go`,
    focal_code: '',
    file_content: '',
    language,
    function_component: { name: 'f', signature: 'f', start_line: 1, end_line: 3 },
    metadata: { class_name: '', class_signature: '' },
    test: [''],
    logs: [''],
    checks: [{ compilation: o.passed, tests: o.passed, coverage: false, invocation: o.passed }],
    coverage_stats: [{ covered_lines: o.passed ? 3 : 0, total_lines: 3, coverage: o.passed ? 100 : 0, covered_line_numbers: [], executable_line_numbers: [] }],
    xrt: {
      sample: o.sample ?? 0,
      round: o.round ?? 0,
      mode: 'standard',
      provider: 'openai',
      model: o.model ?? 'model-x',
      baseline: false,
      test_hash: 'h',
      language,
      invocation_strict: o.passed,
      failure_category: o.passed ? null : 'logic-assertion',
    },
  } as unknown as ResultRecord;
}

function lockOf(runDir: string): LockOwner {
  return JSON.parse(fs.readFileSync(path.join(runDir, RUN_LOCK_NAME), 'utf8')) as LockOwner;
}

function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout); // spawnSync reaped it: the pid is free (reuse within this test is negligible)
}

describe('hostile run folders and reports', function () {
  this.timeout(300_000);
  let dir: string;
  tmpDirPerTest('xrt-hostile-runs-', (d) => (dir = d));

  describe('the run folder lock', () => {
    it('a second `bench` on a folder in use refuses, naming the holder and how to remove a stale lock, and runs nothing', () => {
      const runDir = path.join(dir, 'run');
      const held = acquireRunLock(runDir, 'bench');
      try {
        const r = cli([
          'bench', '--dataset', 'examples/fixtures/tasks.jsonl', '--manifest', 'examples/fixtures/manifest.json', '--lang', 'go', '--limit', '1',
          '--provider', 'baseline', '--executor', 'local', '--run-dir', runDir, '--no-progress',
        ]);
        assert.equal(r.code, 1, r.stderr);
        assert.match(r.stderr, new RegExp(`is in use by process ${process.pid} \\(bench\\) on ${os.hostname()}, PID namespace .*since ${held.owner.startedAt.replace(/[.]/g, '\\.')}`));
        assert.match(r.stderr, /If that process no longer exists .*delete .*run\.lock and run again/);
        assert.ok(!fs.existsSync(path.join(runDir, 'results.jsonl')), 'the second process ran no task');
        assert.ok(!fs.existsSync(path.join(runDir, 'run.json')));
        assert.equal(lockOf(runDir).token, held.owner.token, 'the holder keeps its lock');
      } finally {
        held.release();
      }
      assert.ok(!fs.existsSync(path.join(runDir, RUN_LOCK_NAME)), 'released');
    });

    it('two real `bench` processes: while the first waits on its model, the second refuses; the first, stopped, leaves no lock', async () => {
      // A model endpoint that takes requests and never answers: the first bench holds the folder meanwhile.
      let asked!: () => void;
      const requested = new Promise<void>((resolve) => (asked = resolve));
      const server = http.createServer(() => asked());
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const port = (server.address() as AddressInfo).port;
      const runDir = path.join(dir, 'run');
      const common = ['bench', '--dataset', 'examples/fixtures/tasks.jsonl', '--manifest', 'examples/fixtures/manifest.json', '--lang', 'go', '--limit', '1', '--executor', 'local', '--run-dir', runDir, '--no-progress'];
      const first = spawn(process.execPath, [CLI, ...common, '--provider', 'openai-compatible', '--base-url', `http://127.0.0.1:${port}/v1`, '--model', 'slow', '--no-cache'], { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
      let firstErr = '';
      first.stderr!.on('data', (d) => (firstErr += String(d)));
      const exited = new Promise<number | null>((resolve) => first.on('exit', (code) => resolve(code)));
      try {
        await Promise.race([requested, exited.then(() => assert.fail(`the first bench ended before asking its model:\n${firstErr}`))]);
        const second = cli([...common, '--provider', 'baseline']);
        assert.equal(second.code, 1, second.stderr);
        assert.match(second.stderr, new RegExp(`is in use by process ${first.pid} \\(bench\\) on ${os.hostname()}`));
        // The first has opened its logs; the second added nothing to them.
        const results = path.join(runDir, 'results.jsonl');
        assert.equal(fs.existsSync(results) ? fs.readFileSync(results, 'utf8') : '', '', 'the second ran nothing');
        assert.equal(lockOf(runDir).pid, first.pid);
      } finally {
        first.kill('SIGINT');
        const guard = setTimeout(() => first.kill('SIGKILL'), 60_000);
        await exited;
        clearTimeout(guard);
        server.closeAllConnections();
        server.close();
      }
      assert.ok(!fs.existsSync(path.join(runDir, RUN_LOCK_NAME)), `the stopped bench removed its lock:\n${firstErr}`);
    });

    it('`run --out` locks its output file the same way', () => {
      const out = path.join(dir, 'results.jsonl');
      fs.writeFileSync(`${out}.lock`, JSON.stringify({ ...lockOf2(process.pid), command: 'run' }));
      const tasks = path.join(dir, 'tasks.jsonl');
      fs.copyFileSync(path.join(REPO_ROOT, 'examples/fixtures/tasks.jsonl'), tasks);
      const gens = path.join(dir, 'gens.jsonl');
      const first = JSON.parse(fs.readFileSync(tasks, 'utf8').split('\n')[0]);
      writeJsonl(gens, [{ task_id: first.task_id, language: first.language, test_code: 'x' }]);
      fs.writeFileSync(out, 'kept\n');
      const r = cli(['run', tasks, '--tests', gens, '--out', out, '--repos', path.join(REPO_ROOT, 'test', 'fixtures'), '--executor', 'local', '--no-progress']);
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, new RegExp(`results\\.jsonl is in use by process ${process.pid} \\(run\\)`));
      assert.equal(fs.readFileSync(out, 'utf8'), 'kept\n', 'the other run\'s output is not truncated');
    });

    it('takes over a lock whose process is gone (same host and PID namespace), or whose pid is now another process', () => {
      const runDir = path.join(dir, 'run');
      fs.mkdirSync(runDir);
      const ns = pidNamespaceId();
      const stale: LockOwner = { pid: deadPid(), pidNamespace: ns, hostname: os.hostname(), processStart: '1', startedAt: '2026-01-01T00:00:00.000Z', command: 'bench', token: 'old' };
      fs.writeFileSync(path.join(runDir, RUN_LOCK_NAME), JSON.stringify(stale));
      const lock = acquireRunLock(runDir, 'bench');
      assert.match(lock.tookOver.join('\n'), new RegExp(`took over the lock of process ${stale.pid} \\(bench\\).*: process ${stale.pid} is gone`));
      assert.equal(lockOf(runDir).pid, process.pid);
      lock.release();

      // The parent is alive, but its start time is not the one recorded: the pid was reused.
      const reused = { ...stale, pid: process.ppid, processStart: `${processStartOf(process.ppid)}0`, token: 'reused' };
      fs.writeFileSync(path.join(runDir, RUN_LOCK_NAME), JSON.stringify(reused));
      const again = acquireRunLock(runDir, 'bench');
      assert.match(again.tookOver.join('\n'), /is now another process/);
      again.release();
    });

    it('never takes over a lock of a live process, of another PID namespace or host, or one that says nothing', () => {
      const runDir = path.join(dir, 'run');
      fs.mkdirSync(runDir);
      const file = path.join(runDir, RUN_LOCK_NAME);
      const ns = pidNamespaceId();
      const base: LockOwner = { pid: deadPid(), pidNamespace: ns, hostname: os.hostname(), processStart: null, startedAt: '2026-01-01T00:00:00.000Z', command: 'bench', token: 't' };
      const cases: Array<[LockOwner | string, RegExp]> = [
        // A pid that is dead here may be alive in the container or on the machine that wrote the lock.
        [{ ...base, pidNamespace: '1' }, /in use by process \d+ \(bench\) on .*PID namespace 1,/],
        [{ ...base, hostname: 'other-host' }, /on other-host/],
        [{ ...base, pid: process.ppid, processStart: processStartOf(process.ppid) }, new RegExp(`in use by process ${process.ppid}`)],
        ['not json', /does not say who holds it; if no other xrepotest process uses this folder, delete .*run\.lock/],
      ];
      for (const [content, message] of cases) {
        fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
        assert.throws(() => acquireRunLock(runDir, 'bench'), (e: unknown) => e instanceof RunLockedError && message.test(e.message));
        assert.equal(fs.readFileSync(file, 'utf8'), typeof content === 'string' ? content : JSON.stringify(content), 'left as it was');
      }
    });

    it('a release never removes a lock that is no longer its own', () => {
      const runDir = path.join(dir, 'run');
      const lock = acquireRunLock(runDir, 'bench');
      const other = { ...lock.owner, token: 'someone-else' };
      fs.writeFileSync(path.join(runDir, RUN_LOCK_NAME), JSON.stringify(other));
      lock.release();
      assert.equal(lockOf(runDir).token, 'someone-else');
    });
  });

  describe('report: one row per slot', () => {
    it('drops duplicate (task, sample, round) rows, keeping the last, and says how many', () => {
      const runDir = path.join(dir, 'run');
      fs.mkdirSync(runDir);
      // Task 1 appended twice (two processes once ran it): first failing, then passing. Task 2 twice, same row.
      const rows = [row({ task: 1, passed: false }), row({ task: 2, passed: false }), row({ task: 1, passed: true }), row({ task: 2, passed: false }), row({ task: 3, passed: false }), row({ task: 3, passed: true, sample: 1 })];
      writeJsonl(path.join(runDir, 'results.jsonl'), rows);
      const r = cli(['report', runDir, '--format', 'json']);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /dropped 2 duplicate result rows \(same task, sample and round .*the last row of each is kept\)/);
      const summary = JSON.parse(r.stdout);
      assert.equal(summary.total_slots, 4);
      assert.equal(summary.total_samples, 3, 'tasks, as the release counts them (METRICS.md item 11)');
      assert.equal(summary.test_pass_rate, 50); // task 1 (last row passes) and task 3 sample 1, of 4 slots
      const deduped = dedupeSlots(rows);
      assert.equal(deduped.dropped, 2);
      assert.deepEqual(deduped.results.map((x) => [x.task_id, x.xrt.sample, x.checks[0].tests]), [[1, 0, true], [2, 0, false], [3, 0, false], [3, 1, true]]);
      // Other models' rows for the same task are other slots, never duplicates.
      assert.equal(dedupeSlots([row({ task: 1, passed: true }), row({ task: 1, passed: true, model: 'model-y' })]).dropped, 0);
    });
  });

  describe('report: names from result rows are text', () => {
    const MODEL = '<script>alert(1)</script>|x';
    const REPO = 'evil<img src=x onerror=alert(2)>|[click](http://e)`';

    it('report.md escapes model and repository names (no HTML, no extra table cell, no link)', () => {
      const file = path.join(dir, 'results.jsonl');
      writeJsonl(file, [row({ task: 1, passed: true, model: MODEL, repo: REPO }), row({ task: 2, passed: false, model: MODEL, repo: REPO })]);
      const out = path.join(dir, 'report.md');
      const r = cli(['report', file, '--format', 'markdown', '--out', out, '--label', 'run <b>|</b>']);
      assert.equal(r.code, 0, r.stderr);
      const md = fs.readFileSync(out, 'utf8');
      assert.doesNotMatch(md, /<script|<img|<b>/i, 'no raw tag');
      assert.doesNotMatch(md, /(?<!\\)\]\(http/, 'no link');
      assert.match(md, /&lt;script&gt;alert\(1\)&lt;\/script&gt;\\\|x/);
      // Every table row has as many unescaped cell separators as its header.
      for (const table of md.split(/\n\n/).filter((b) => b.startsWith('|'))) {
        const cells = table.split('\n').filter((l) => l.trim()).map((l) => l.split(/(?<!\\)\|/).length);
        assert.ok(cells.every((n) => n === cells[0]), `a row with an extra cell:\n${table}`);
      }
    });

    it('report.html escapes them too', () => {
      const file = path.join(dir, 'results.jsonl');
      writeJsonl(file, [row({ task: 1, passed: true, model: MODEL, repo: REPO }), row({ task: 2, passed: false, model: MODEL, repo: REPO })]);
      const out = path.join(dir, 'report.html');
      const r = cli(['report', file, '--format', 'html', '--out', out, '--label', 'run <b>x</b>']);
      assert.equal(r.code, 0, r.stderr);
      const html = fs.readFileSync(out, 'utf8');
      assert.doesNotMatch(html, /<script|<img|<b>/i);
      assert.match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;\|x/);
    });

    it('escapeMarkdown leaves no construct and no line break', () => {
      assert.equal(escapeMarkdown('a|b\nc\r\u2028d'), 'a\\|b c d');
      assert.equal(escapeMarkdown('*x* _y_ `z` ~~s~~ [l](u) $m$ \\'), '\\*x\\* \\_y\\_ \\`z\\` \\~\\~s\\~\\~ \\[l\\](u) \\$m\\$ \\\\');
      assert.equal(escapeMarkdown('R&D <T>'), 'R&amp;D &lt;T&gt;');
    });
  });
});

/** A lock as a live process in this namespace would hold it (here: this test process). */
function lockOf2(pid: number): LockOwner {
  return { pid, pidNamespace: fs.readlinkSync('/proc/self/ns/pid'), hostname: os.hostname(), processStart: processStartOf(pid), startedAt: new Date().toISOString(), command: 'run', token: 'held' };
}
