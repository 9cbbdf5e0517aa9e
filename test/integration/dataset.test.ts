import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gitBlobSha1 } from '../../src/engine/dataset/hash';
import { focalFiles, parseRepoSpec, pinRepository } from '../../src/engine/dataset/pin';
import { loadManifest } from '../../src/engine/tasks/manifest';
import type { TaskRecord } from '../../src/engine/tasks/record';
import { hasTool, skipBecause } from '../helpers/skip';
import { runCli } from '../helpers/dataset-cli';

/* ---------------------------------------------------------------- pin */

function gitIn(dir: string, ...args: string[]): string {
  return execFileSync('git', ['-C', dir, '-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'commit.gpgsign=false', ...args], { encoding: 'utf8' }).trim();
}

interface History {
  root: string;
  /** The folder that is the published repository (the root, or a sub-folder of a bigger checkout). */
  repo: string;
  commits: Record<'c1' | 'c2' | 'c3' | 'c4' | 'c5' | 'c6', string>;
  /** Each commit's contents of the focal files. */
  at: Record<string, Record<string, string>>;
}

const goFile = (name: string, version: number): string =>
  `package shapes\n\n// ${name}, version ${version}\nfunc ${name}(x int) int {\n\tif x < ${version} {\n\t\treturn ${version}\n\t}\n\treturn x * ${version}\n}\n`;

/** Six commits: c2 and c5 change a.go, c3 changes b/c.go, c4 and c6 change only a README. */
function buildHistory(base: string, sub = ''): History {
  const root = path.join(base, 'upstream');
  const repo = path.join(root, sub);
  fs.mkdirSync(path.join(repo, 'src', 'b'), { recursive: true });
  execFileSync('git', ['init', '-q', '-b', 'main', root]);
  const at: History['at'] = {};
  const state: Record<string, string> = {};
  const commit = (label: string, changes: Record<string, string>): string => {
    for (const [p, text] of Object.entries(changes)) {
      fs.writeFileSync(path.join(repo, p), text);
      state[p] = text;
    }
    gitIn(root, 'add', '-A');
    gitIn(root, 'commit', '-q', '-m', label);
    const sha = gitIn(root, 'rev-parse', 'HEAD');
    at[sha] = { 'src/a.go': state['src/a.go'], 'src/b/c.go': state['src/b/c.go'] };
    return sha;
  };
  const c1 = commit('c1', { 'src/a.go': goFile('Area', 1), 'src/b/c.go': goFile('Corner', 1), 'README.md': 'one\n' });
  const c2 = commit('c2', { 'src/a.go': goFile('Area', 2) });
  const c3 = commit('c3', { 'src/b/c.go': goFile('Corner', 2) });
  const c4 = commit('c4', { 'README.md': 'two\n' });
  const c5 = commit('c5', { 'src/a.go': goFile('Area', 3) });
  const c6 = commit('c6', { 'README.md': 'three\n' });
  return { root, repo, commits: { c1, c2, c3, c4, c5, c6 }, at };
}

function record(taskId: number, repoDir: string, pathInRepo: string, fileContent: string, fn: string): TaskRecord {
  return {
    task_id: taskId,
    function_name: fn,
    file_path: `${repoDir}/${pathInRepo}`,
    focal_code: fileContent.slice(fileContent.indexOf('func ')),
    file_content: fileContent,
    language: 'go',
    function_component: { name: fn, signature: `func ${fn}(x int) int`, start_line: 4, end_line: 9 },
    metadata: { package: 'shapes', class_name: '', class_signature: '' },
  };
}

/** Records as the release would have made them from the repository at `commit`: two tasks in a.go, one in b/c.go. */
function recordsAt(h: History, commit: string, repoDir = 'shapes-main'): TaskRecord[] {
  const files = h.at[commit];
  return [
    record(0, repoDir, 'src/a.go', files['src/a.go'], 'Area'),
    record(1, repoDir, 'src/a.go', files['src/a.go'], 'Perimeter'),
    record(2, repoDir, 'src/b/c.go', files['src/b/c.go'], 'Corner'),
  ];
}

describe('dataset pin: recovering the upstream commit of a published repository', () => {
  let tmp: string;
  before(function () {
    if (!hasTool('git')) skipBecause(this, 'git is not installed');
  });
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-pin-'));
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('reads --repo <lang>/<repo_dir>=<source>, and hashes records as git blobs', () => {
    assert.deepEqual(parseRepoSpec('rust/rust-master=https://github.com/TheAlgorithms/Rust'), { language: 'rust', repoDir: 'rust-master', source: 'https://github.com/TheAlgorithms/Rust' });
    assert.throws(() => parseRepoSpec('cobol/x=/tmp/x'), /unknown language cobol/);
    assert.throws(() => parseRepoSpec('rust-master=/tmp/x'), /expected <lang>\/<repo_dir>=/);
    const dir = path.join(tmp, 'blob');
    execFileSync('git', ['init', '-q', dir]);
    fs.writeFileSync(path.join(dir, 'f.go'), 'package x // ünïcode\n');
    assert.equal(gitBlobSha1('package x // ünïcode\n'), gitIn(dir, 'hash-object', 'f.go'));
  });

  it('finds exactly the commit the records were made from, in a local checkout', () => {
    const h = buildHistory(tmp);
    const tasks = recordsAt(h, h.commits.c3);
    assert.deepEqual(focalFiles(tasks, 'go', 'shapes-main').map((f) => [f.path, f.tasks]), [['src/a.go', 2], ['src/b/c.go', 1]]);
    const manifestFile = path.join(tmp, 'manifest.json');
    const r = pinRepository({ spec: { language: 'go', repoDir: 'shapes-main', source: h.repo }, tasks, manifestFile });
    assert.equal(r.match.full, true);
    assert.equal(r.match.best!.commit, h.commits.c3);
    assert.equal(r.match.changedNextAt, h.commits.c5, 'c4 has the same focal files; c5 changes one');
    const m = loadManifest(manifestFile).manifest;
    assert.deepEqual(m.repositories['shapes-main'], { checkout: 'upstream', commit: h.commits.c3, url: path.resolve(h.repo) });
    assert.ok(r.notes.some((n) => n.includes(`is at ${h.commits.c6.slice(0, 12)}`)), 'says the checkout is elsewhere');

    // Records of the oldest commit pin the oldest commit; of the newest, the newest change.
    assert.equal(pinRepository({ spec: { language: 'go', repoDir: 'shapes-main', source: h.repo }, tasks: recordsAt(h, h.commits.c1), manifestFile }).match.best!.commit, h.commits.c1);
    assert.equal(pinRepository({ spec: { language: 'go', repoDir: 'shapes-main', source: h.repo }, tasks: recordsAt(h, h.commits.c6), manifestFile }).match.best!.commit, h.commits.c5);
  });

  it('reports a partial match with its fraction and commit, and pins it only with acceptPartial', () => {
    const h = buildHistory(tmp);
    const tasks = recordsAt(h, h.commits.c3);
    tasks[1] = record(1, 'shapes-main', 'src/a.go', h.at[h.commits.c1]['src/a.go'], 'Perimeter'); // one record from another commit
    const manifestFile = path.join(tmp, 'manifest.json');
    fs.writeFileSync(manifestFile, JSON.stringify({ repositories: { other: { checkout: 'elsewhere', commit: null } } }));
    const spec = { language: 'go' as const, repoDir: 'shapes-main', source: h.repo };
    const refused = pinRepository({ spec, tasks, manifestFile });
    assert.equal(refused.match.full, false);
    assert.equal(refused.entry, null);
    assert.deepEqual(
      [refused.match.best!.commit, refused.match.best!.matched, refused.match.best!.total, refused.match.best!.matchedTasks, refused.match.best!.totalTasks],
      [h.commits.c3, 2, 3, 2, 3],
    );
    assert.deepEqual(refused.match.best!.mismatched, ['src/a.go']);
    assert.equal(loadManifest(manifestFile).manifest.repositories['shapes-main'], undefined, 'nothing pinned');

    const accepted = pinRepository({ spec, tasks, manifestFile, acceptPartial: true });
    assert.equal(accepted.entry!.commit, h.commits.c3);
    const m = loadManifest(manifestFile).manifest;
    assert.equal(m.repositories['shapes-main'].commit, h.commits.c3);
    assert.deepEqual(m.repositories.other, { checkout: 'elsewhere', commit: null }, 'other entries are kept');
  });

  it('clones a git URL bare into the cache, checks the commit out, and pins a repository kept in a sub-folder', () => {
    const h = buildHistory(tmp);
    const url = `file://${h.root}`;
    const manifestFile = path.join(tmp, 'work', 'manifest.json');
    const cacheDir = path.join(tmp, 'cache');
    const spec = { language: 'go' as const, repoDir: 'shapes-main', source: url };
    const r = pinRepository({ spec, tasks: recordsAt(h, h.commits.c2), manifestFile, cacheDir });
    assert.equal(r.entry!.commit, h.commits.c2);
    assert.deepEqual(loadManifest(manifestFile).manifest.repositories['shapes-main'], { checkout: 'repos/go/shapes-main', commit: h.commits.c2, url });
    const checkout = path.join(tmp, 'work', 'repos', 'go', 'shapes-main');
    assert.equal(gitIn(checkout, 'rev-parse', 'HEAD'), h.commits.c2);
    assert.equal(fs.readFileSync(path.join(checkout, 'src', 'a.go'), 'utf8'), h.at[h.commits.c2]['src/a.go']);
    const clones = fs.readdirSync(cacheDir);
    assert.equal(clones.length, 1);
    assert.equal(gitIn(path.join(cacheDir, clones[0]), 'rev-parse', '--is-bare-repository'), 'true');
    // A second pin reuses the clone and moves the existing checkout.
    const again = pinRepository({ spec, tasks: recordsAt(h, h.commits.c5), manifestFile, cacheDir });
    assert.equal(again.entry!.commit, h.commits.c5);
    assert.equal(gitIn(checkout, 'rev-parse', 'HEAD'), h.commits.c5);

    const mono = buildHistory(path.join(tmp, 'mono'), 'vendor/shapes-main');
    const sub = pinRepository({ spec: { language: 'go', repoDir: 'shapes-main', source: mono.repo }, tasks: recordsAt(mono, mono.commits.c3), manifestFile: path.join(tmp, 'm2.json') });
    assert.equal(sub.match.best!.commit, mono.commits.c3);
    assert.equal(sub.match.full, true);
  });

  it('runs as `xrepotest dataset pin`, exiting 1 on a partial match unless --accept-partial', async () => {
    const h = buildHistory(tmp);
    const tasksFile = path.join(tmp, 'go_functions.jsonl');
    const tasks = recordsAt(h, h.commits.c3);
    fs.writeFileSync(tasksFile, tasks.map((t) => JSON.stringify(t)).join('\n') + '\n');
    const manifest = path.join(tmp, 'manifest.json');
    const ok = await runCli(['dataset', 'pin', '--repo', `go/shapes-main=${h.repo}`, '--tasks', tasksFile, '--manifest', manifest], {});
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, new RegExp(`go/shapes-main: ${h.commits.c3} matches all 2 focal files \\(3 tasks\\)`));
    tasks[2] = record(2, 'shapes-main', 'src/b/c.go', 'package shapes // not in any commit\n', 'Corner');
    fs.writeFileSync(tasksFile, tasks.map((t) => JSON.stringify(t)).join('\n') + '\n');
    const partial = await runCli(['dataset', 'pin', '--repo', `go/shapes-main=${h.repo}`, '--tasks', tasksFile, '--manifest', manifest], {});
    assert.equal(partial.code, 1);
    assert.match(partial.stdout, new RegExp(`the best, ${h.commits.c3}, matches 1 of 2 \\(50\\.0 %; 2 of 3 tasks\\); differing: src/b/c\\.go`));
    assert.match(partial.stdout, /pass --accept-partial/);
    const missing = await runCli(['dataset', 'pin', '--repo', `go/nope=${h.repo}`, '--tasks', tasksFile, '--manifest', manifest], {});
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /go\/nope: no task of the records is in that repository \(go repositories there: shapes-main\)/);
  });
});
