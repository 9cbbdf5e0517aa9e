import { openHardenedGit } from '../util/hardened-git';

/**
 * What changed in a checkout since a git ref (`extract --changed-since`): the lines of each file that
 * differ from the ref, in the working tree (committed since, staged or not), and files git does not
 * track yet (all their lines). Functions whose lines it touches are the ones a reviewer wants tests for.
 *
 * The checkout may be anyone's: git runs without reading its configuration (util/hardened-git.ts), so
 * nothing of it can start a program, and the ref is resolved to a commit first, so it is never read as
 * an option.
 */
export interface ChangedLines {
  /** The ref as given, and the commit it names. */
  ref: string;
  commit: string;
  /** Per file ('/'-separated, relative to the folder asked about, which may be inside the repository): changed line ranges of the new side, 1-based, inclusive. */
  files: Map<string, Array<[number, number]>>;
}

export class ChangedSinceError extends Error {}

/** A whole file (untracked, or new since the ref). */
const WHOLE: [number, number] = [1, Number.MAX_SAFE_INTEGER];

/** The lines changed in `dir` since `ref` (see the header). */
export function changedLinesSince(dir: string, ref: string): ChangedLines {
  if (!ref || ref.startsWith('-') || /[\0\n]/.test(ref)) throw new ChangedSinceError(`--changed-since ${JSON.stringify(ref)}: not a git ref (a branch, tag or commit, e.g. main or HEAD~3)`);
  const git = openHardenedGit(dir);
  try {
    const run = (args: string[]): string => git.run(args).toString('utf8');
    let commit: string;
    try {
      commit = run(['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`]).trim();
    } catch (e) {
      throw new ChangedSinceError(`${dir}: --changed-since ${ref} names no commit here (${(e as Error).message || 'unknown ref'}); give a branch, tag or commit of this repository`);
    }
    if (!/^[0-9a-f]{40,64}$/.test(commit)) throw new ChangedSinceError(`${dir}: --changed-since ${ref} names no commit here`);
    const files = parseUnifiedZero(run(['diff', '--relative', '--no-ext-diff', '--no-textconv', '--no-color', '--no-renames', '--unified=0', commit, '--']));
    for (const rel of run(['ls-files', '--others', '--exclude-standard', '-z']).split('\0')) if (rel) files.set(rel, [WHOLE]);
    return { ref, commit, files };
  } finally {
    git.close();
  }
}

/**
 * The new side's changed ranges of `git diff --unified=0`. A hunk that only deletes (`+c,0`) marks the
 * lines on either side of where the deletion was: the function around it changed.
 */
export function parseUnifiedZero(diff: string): Map<string, Array<[number, number]>> {
  const files = new Map<string, Array<[number, number]>>();
  let current: Array<[number, number]> | null = null;
  for (const line of diff.split('\n')) {
    if (line.startsWith('diff --git ')) current = null;
    else if (line.startsWith('+++ ')) {
      const name = line.slice(4);
      // `+++ /dev/null`: the file was deleted; nothing of it is left to test.
      if (name === '/dev/null') current = null;
      else {
        const rel = unquote(name).replace(/^b\//, '');
        current = files.get(rel) ?? [];
        files.set(rel, current);
      }
    } else if (current && line.startsWith('@@ ')) {
      const m = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/.exec(line);
      if (!m) continue;
      const start = Number(m[1]);
      const count = m[2] === undefined ? 1 : Number(m[2]);
      current.push(count === 0 ? [Math.max(start, 1), start + 1] : [start, start + count - 1]);
    }
  }
  return files;
}

/** A path git quoted ("b/dir/\303\251.go"): octal escapes back to UTF-8 bytes. */
function unquote(name: string): string {
  if (!name.startsWith('"') || !name.endsWith('"')) return name;
  const bytes: number[] = [];
  const body = name.slice(1, -1);
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c !== '\\') {
      bytes.push(...Buffer.from(c, 'utf8'));
      continue;
    }
    const next = body[++i];
    if (/[0-7]/.test(next)) {
      bytes.push(parseInt(body.slice(i, i + 3), 8));
      i += 2;
    } else bytes.push(({ n: 10, t: 9, '"': 34, '\\': 92 } as Record<string, number>)[next] ?? next.charCodeAt(0));
  }
  return Buffer.from(bytes).toString('utf8');
}

/** Whether the change touches lines `start`–`end` of `rel` (a path relative to the checkout's root). */
export function touches(changed: ChangedLines, rel: string, start: number, end: number): boolean {
  return (changed.files.get(rel) ?? []).some(([a, b]) => a <= end && b >= start);
}
