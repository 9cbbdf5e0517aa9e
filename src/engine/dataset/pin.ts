import * as fs from 'node:fs';
import * as path from 'node:path';
import { LANGUAGE_IDS, type LanguageId } from '../parse/grammars';
import { loadManifest, type Manifest } from '../tasks/manifest';
import type { TaskRecord } from '../tasks/record';
import { pathInRepository, repositoryFolderOf, taskPathProblem } from '../tasks/task-path';
import { GitError, defaultGitCache, ensureBareClone, git, headOf, isGitUrl, materializeCheckout, openLocalRepository } from './git';
import { gitBlobSha1 } from './hash';

/** `--repo <lang>/<repo_dir>=<git URL or checkout>`. */
export interface RepoSpec {
  language: LanguageId;
  repoDir: string;
  source: string;
}

export function parseRepoSpec(value: string): RepoSpec {
  const m = /^([a-z]+)\/([^/=]+)=(.+)$/.exec(value.trim());
  if (!m) throw new Error(`--repo ${value}: expected <lang>/<repo_dir>=<git URL or checkout>, e.g. rust/rust-master=https://github.com/TheAlgorithms/Rust`);
  const [, language, repoDir, source] = m;
  if (!LANGUAGE_IDS.includes(language as LanguageId)) throw new Error(`--repo ${value}: unknown language ${language} (expected ${LANGUAGE_IDS.join(',')})`);
  return { language: language as LanguageId, repoDir, source };
}

/** One focal file as the records have it. Two records disagreeing about a file count as two. */
export interface FocalFile {
  /** The path inside the repository (the record's `file_path` without its first segment). */
  path: string;
  /** Git's blob id of the record's `file_content`. */
  blob: string;
  /** How many tasks have this file with this content. */
  tasks: number;
}

/** The focal files of one repository's tasks, each distinct (path, content) once. */
export function focalFiles(tasks: readonly TaskRecord[], language: LanguageId, repoDir: string): FocalFile[] {
  const byKey = new Map<string, FocalFile>();
  for (const t of tasks) {
    if (taskPathProblem(t.file_path) || repositoryFolderOf(t) !== repoDir || t.language.toLowerCase() !== language) continue;
    const file: FocalFile = { path: pathInRepository(t), blob: gitBlobSha1(t.file_content), tasks: 0 };
    const key = `${file.path}\0${file.blob}`;
    const seen = byKey.get(key) ?? file;
    seen.tasks++;
    byKey.set(key, seen);
  }
  return [...byKey.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.blob < b.blob ? -1 : 1));
}

export interface CommitMatch {
  commit: string;
  matched: number;
  total: number;
  matchedTasks: number;
  totalTasks: number;
  /** Focal paths whose content at this commit is not the records' (or that do not exist there). */
  mismatched: string[];
}

export interface HistoryMatch {
  ref: string;
  commitsExamined: number;
  /** The commit matching the most focal files, newest first among equals; null when none matches any. */
  best: CommitMatch | null;
  full: boolean;
  /**
   * The focal files stay as at `best` in every later commit up to this one (the next newer commit
   * that changes one of them); null: up to the ref's tip. The records cannot tell those commits apart.
   */
  changedNextAt: string | null;
}

/** Commits per `git cat-file --batch-check` call: enough to amortise the process, small enough to stop early. */
const COMMITS_PER_BATCH = 64;

/**
 * Walks the history of `ref` over the focal paths, newest first, and finds the newest commit whose
 * blobs are exactly the records' contents: blob ids are compared, so no file is read.
 */
export function matchHistory(gitDir: string, focal: readonly FocalFile[], opts: { ref?: string; prefix?: string } = {}): HistoryMatch {
  const ref = opts.ref ?? 'HEAD';
  const prefix = opts.prefix ?? '';
  const paths = [...new Set(focal.map((f) => prefix + f.path))];
  const totalTasks = focal.reduce((n, f) => n + f.tasks, 0);
  const commits = git([`--git-dir=${gitDir}`, 'log', '--format=%H', ref, '--', ...paths]).split('\n').filter(Boolean);
  let best: CommitMatch | null = null;
  let bestIndex = -1;
  let examined = 0;
  for (let i = 0; i < commits.length; i += COMMITS_PER_BATCH) {
    const batch = commits.slice(i, i + COMMITS_PER_BATCH);
    const queries = batch.flatMap((c) => paths.map((p) => `${c}:${p}`));
    const answers = git([`--git-dir=${gitDir}`, 'cat-file', '--batch-check=%(objectname)'], { input: queries.join('\n') + '\n' }).split('\n');
    for (let j = 0; j < batch.length; j++) {
      const blobAt = new Map<string, string>();
      paths.forEach((p, k) => blobAt.set(p, answers[j * paths.length + k]?.trim() ?? ''));
      const mismatched = new Set<string>();
      let matched = 0;
      let matchedTasks = 0;
      for (const f of focal) {
        if (blobAt.get(prefix + f.path) === f.blob) {
          matched++;
          matchedTasks += f.tasks;
        } else mismatched.add(f.path);
      }
      examined++;
      if (!best || matched > best.matched) {
        best = { commit: batch[j], matched, total: focal.length, matchedTasks, totalTasks, mismatched: [...mismatched] };
        bestIndex = i + j;
      }
      if (matched === focal.length) {
        return { ref, commitsExamined: examined, best, full: true, changedNextAt: i + j > 0 ? commits[i + j - 1] : null };
      }
    }
  }
  if (best && best.matched === 0) best = null;
  return { ref, commitsExamined: examined, best, full: false, changedNextAt: best && bestIndex > 0 ? commits[bestIndex - 1] : null };
}

export function describeMatch(spec: RepoSpec, m: HistoryMatch): string {
  const name = `${spec.language}/${spec.repoDir}`;
  if (!m.best) return `${name}: no commit of ${m.ref} (${m.commitsExamined} examined) has any focal file as the records have it`;
  const b = m.best;
  const span = m.changedNextAt ? `; the focal files stay so until ${m.changedNextAt.slice(0, 12)} changes one` : `; the focal files stay so up to the tip of ${m.ref}`;
  if (m.full) return `${name}: ${b.commit} matches all ${b.total} focal files (${b.totalTasks} tasks) byte for byte${span}`;
  const pct = ((100 * b.matched) / b.total).toFixed(1);
  const some = b.mismatched.slice(0, 5).join(', ') + (b.mismatched.length > 5 ? `, … (${b.mismatched.length} in all)` : '');
  return `${name}: no commit matches every focal file; the best, ${b.commit}, matches ${b.matched} of ${b.total} (${pct} %; ${b.matchedTasks} of ${b.totalTasks} tasks); differing: ${some}`;
}

export interface ManifestEntry {
  checkout: string;
  commit: string;
  url: string;
}

/** Sets one repository's entry, keeping the others; written through a rename. */
export function writeManifestEntry(manifestFile: string, repoDir: string, entry: ManifestEntry): { replaced: ManifestEntry | null } {
  const manifest: Manifest = fs.existsSync(manifestFile) ? loadManifest(manifestFile).manifest : { repositories: {} };
  const old = manifest.repositories[repoDir];
  manifest.repositories[repoDir] = entry;
  fs.mkdirSync(path.dirname(path.resolve(manifestFile)), { recursive: true });
  const tmp = `${manifestFile}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(manifest, null, 2) + '\n');
  fs.renameSync(tmp, manifestFile);
  return { replaced: old ? { checkout: old.checkout, commit: old.commit ?? '', url: old.url ?? '' } : null };
}

export interface PinOptions {
  spec: RepoSpec;
  /** Records of any repositories and languages; the spec's are picked out. */
  tasks: readonly TaskRecord[];
  manifestFile: string;
  /** Where bare clones of URLs are kept (default: the user's cache folder). */
  cacheDir?: string;
  /** Where a URL's working copy at the pinned commit goes (default: `<manifest folder>/repos/<lang>`). */
  checkoutsDir?: string;
  ref?: string;
  acceptPartial?: boolean;
  /** Bring an existing cached clone up to date first (default true). */
  update?: boolean;
}

export interface PinResult {
  spec: RepoSpec;
  focal: FocalFile[];
  match: HistoryMatch;
  /** Written to the manifest. */
  entry: ManifestEntry | null;
  notes: string[];
}

/** Finds the upstream commit of one published repository and, when it is sound, writes it to the manifest. */
export function pinRepository(opts: PinOptions): PinResult {
  const { spec } = opts;
  const focal = focalFiles(opts.tasks, spec.language, spec.repoDir);
  if (!focal.length) {
    const present = [...new Set(opts.tasks.filter((t) => t.language.toLowerCase() === spec.language).map((t) => repositoryFolderOf(t)))];
    throw new Error(`${spec.language}/${spec.repoDir}: no task of the records is in that repository (${spec.language} repositories there: ${present.join(', ') || 'none'})`);
  }
  const notes: string[] = [];
  let gitDir: string;
  let url: string;
  let workTree: string | null = null;
  let prefix = '';
  if (isGitUrl(spec.source)) {
    const clone = ensureBareClone(spec.source, opts.cacheDir ?? defaultGitCache(), opts.update ?? true);
    if (clone.warning) notes.push(clone.warning);
    gitDir = clone.gitDir;
    url = spec.source;
  } else {
    const local = openLocalRepository(spec.source);
    ({ gitDir, workTree, prefix, url } = local);
  }
  const match = matchHistory(gitDir, focal, { ref: opts.ref, prefix });
  if (!match.best || (!match.full && !opts.acceptPartial)) return { spec, focal, match, entry: null, notes };

  const commit = match.best.commit;
  const manifestDir = path.dirname(path.resolve(opts.manifestFile));
  let checkout: string;
  if (workTree) {
    checkout = workTree;
    const head = headOf(workTree);
    if (head !== commit) notes.push(`the checkout ${workTree} is at ${head?.slice(0, 12) ?? 'no commit'}, not ${commit.slice(0, 12)}: \`git -C ${workTree} checkout ${commit}\` before running (run excludes tasks whose focal file differs)`);
  } else {
    if (prefix) throw new GitError('internal: a bare repository has no sub-folder');
    checkout = path.join(path.resolve(opts.checkoutsDir ?? path.join(manifestDir, 'repos', spec.language)), spec.repoDir);
    materializeCheckout(gitDir, url, checkout, commit);
    notes.push(`checked out ${commit.slice(0, 12)} at ${checkout}`);
  }
  const entry: ManifestEntry = { checkout: path.relative(manifestDir, checkout) || '.', commit, url };
  const { replaced } = writeManifestEntry(opts.manifestFile, spec.repoDir, entry);
  if (replaced && replaced.url && replaced.url !== url) notes.push(`replaced the manifest's entry for ${spec.repoDir}, which pointed at ${replaced.url} (repo_dir names repeat across languages: keep one manifest per language)`);
  if (!match.full) notes.push(`pinned a partial match (--accept-partial): ${match.best.total - match.best.matched} focal file(s) differ, and run excludes their tasks`);
  return { spec, focal, match, entry, notes };
}
