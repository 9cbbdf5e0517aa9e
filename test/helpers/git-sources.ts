import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FIXTURES } from './paths';

function git(args: string[], cwd: string): string {
  const r = spawnSync('git', ['-c', 'user.email=t@example.org', '-c', 'user.name=test', ...args], { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

/**
 * Fixtures as repositories a worker fetches by URL at a commit (bare repositories under `work`), and
 * the sources file naming them. `nested`: a fixture kept in a folder of a bigger repository (as
 * extract records it: `subdir`); the others mark their Go tests export-ignore, as packages often do.
 */
export function fixtureSources(work: string, names: readonly string[], nested: readonly string[] = []): { file: string; sources: Record<string, { url: string; commit: string; subdir?: string }> } {
  const sources: Record<string, { url: string; commit: string; subdir?: string }> = {};
  for (const name of names) {
    const sub = nested.includes(name) ? path.join('packages', name) : null;
    const src = path.join(work, 'src', name);
    fs.cpSync(path.join(FIXTURES, name), sub ? path.join(src, sub) : src, { recursive: true });
    if (sub) fs.writeFileSync(path.join(src, 'README'), 'a repository holding several packages\n');
    else fs.writeFileSync(path.join(src, '.gitattributes'), '*_test.go export-ignore\n');
    git(['init', '-q'], src);
    git(['add', '-A'], src);
    git(['commit', '-qm', 'fixture'], src);
    const bare = path.join(work, 'remote', `${name}.git`);
    git(['clone', '-q', '--bare', src, bare], work);
    sources[name] = { url: `file://${bare}`, commit: git(['rev-parse', 'HEAD'], src), ...(sub ? { subdir: sub.split(path.sep).join('/') } : {}) };
  }
  const file = path.join(work, 'sources.json');
  fs.writeFileSync(file, JSON.stringify(sources));
  return { file, sources };
}
