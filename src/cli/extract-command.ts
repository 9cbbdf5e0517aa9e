import * as fs from 'node:fs';
import { changedLinesSince, touches, type ChangedLines } from '../engine/extract/changed-lines';
import { extractRepository, type ExtractSummary } from '../engine/extract/extract';
import { pathInRepository } from '../engine/tasks/task-path';
import { DROP_RULES, type FilterConfig } from '../engine/extract/filters';
import { parseLanguageId, type LanguageId } from '../engine/languages';
import { writeJsonlAtomic } from '../engine/tasks/jsonl';
import type { TaskRecord } from '../engine/tasks/record';
import { createProgress } from './progress';

export interface ExtractCommandOptions {
  lang?: string;
  out?: string;
  summary?: string;
  minLines: number;
  maxLines: number;
  maxFileBytes: number;
  parseDeadlineMs: number;
  progress: boolean;
  lines?: string[];
  /** Only functions whose lines changed since this git ref (committed since, staged, unstaged or untracked). */
  changedSince?: string;
}

type LineBounds = NonNullable<FilterConfig['perLanguage']>;

/** `--lines ruby=10-50 --lines go=30-80`: line bounds per language. */
export function parseLineBounds(specs: string[] | undefined): LineBounds {
  const out: LineBounds = {};
  for (const spec of specs ?? []) {
    const m = /^([a-z]+)=(\d+)-(\d+)$/i.exec(spec.trim());
    const lang = m ? parseLanguageId(m[1]) : undefined;
    if (!m || !lang) throw new Error(`--lines ${spec}: expected <language>=<min>-<max>, e.g. ruby=10-50`);
    const [minLines, maxLines] = [Number(m[2]), Number(m[3])];
    if (minLines > maxLines) throw new Error(`--lines ${spec}: the minimum is above the maximum`);
    out[lang] = { minLines, maxLines };
  }
  return out;
}

export function parseLanguages(list: string | undefined): LanguageId[] | undefined {
  if (!list) return undefined;
  return list.split(',').map((name) => {
    const id = parseLanguageId(name);
    if (!id) throw new Error(`unknown language "${name}": use rust, go, php, ruby or julia (comma-separated)`);
    return id;
  });
}

export async function runExtract(repoDirs: string[], opts: ExtractCommandOptions, signal: AbortSignal): Promise<number> {
  const languages = parseLanguages(opts.lang);
  const perLanguage = parseLineBounds(opts.lines);
  if (opts.minLines > opts.maxLines) throw new Error(`--min-lines ${opts.minLines} is above --max-lines ${opts.maxLines}`);
  for (const dir of repoDirs) {
    if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) throw new Error(`${dir}: not a folder (give the root of a repository checkout)`);
  }
  const all: TaskRecord[] = [];
  const summaries: ExtractSummary[] = [];
  const nextId: Partial<Record<LanguageId, number>> = {};
  for (const dir of repoDirs) {
    // Asked before the walk: a ref the checkout does not know stops here, with git's words.
    const changed = opts.changedSince !== undefined ? changedLinesSince(dir, opts.changedSince) : null;
    const progress = createProgress(`extract ${dir}`, opts.progress);
    try {
      const { tasks, summary } = await extractRepository(dir, {
        languages,
        filters: { minLines: opts.minLines, maxLines: opts.maxLines, perLanguage },
        maxFileBytes: opts.maxFileBytes,
        parseDeadlineMs: opts.parseDeadlineMs,
        firstTaskId: nextId,
        signal,
        onProgress: (p) => progress.update(p.filesDone, p.filesTotal, p.file),
      });
      const kept = changed ? onlyChanged(tasks, changed, nextId) : tasks;
      for (const t of kept) nextId[t.language as LanguageId] = (t.task_id as number) + 1;
      all.push(...kept);
      summaries.push(summary);
      if (changed) process.stderr.write(`${dir}: changed since ${changed.ref} (${changed.commit.slice(0, 12)}): ${changed.files.size} files; ${kept.length} of ${tasks.length} kept functions touched\n`);
    } finally {
      progress.stop();
    }
    process.stderr.write(formatSummary(summaries[summaries.length - 1]) + '\n');
  }
  if (summaries.length > 1) process.stderr.write(formatTotals(summaries) + '\n');
  if (opts.out) {
    writeJsonlAtomic(opts.out, all);
    process.stderr.write(`wrote ${all.length} tasks to ${opts.out}\n`);
  } else {
    for (const t of all) process.stdout.write(JSON.stringify(t) + '\n');
  }
  if (opts.summary) fs.writeFileSync(opts.summary, JSON.stringify(summaries.length === 1 ? summaries[0] : summaries, null, 2) + '\n');
  return 0;
}

/** The tasks whose function the change touches, numbered on from `nextId` per language (ids stay consecutive). */
function onlyChanged(tasks: TaskRecord[], changed: ChangedLines, nextId: Partial<Record<LanguageId, number>>): TaskRecord[] {
  const next = { ...nextId };
  return tasks
    .filter((t) => touches(changed, pathInRepository(t), t.function_component.start_line, t.function_component.end_line))
    .map((t) => {
      const language = t.language as LanguageId;
      const id = next[language] ?? 0;
      next[language] = id + 1;
      // The base the change is measured from: `run --regression-check` runs passing tests there too.
      return { ...t, task_id: id, changed_since: { ref: changed.ref, commit: changed.commit } };
    });
}

function dropLine(dropped: Record<string, number>): string {
  return DROP_RULES.map((r) => `${r} ${dropped[r]}`).join(', ');
}

export function formatSummary(s: ExtractSummary): string {
  const lines: string[] = [];
  const pin = s.repository.commit ? `@ ${s.repository.commit.slice(0, 12)}` : '(not a git checkout)';
  lines.push(`${s.repository.name} ${pin}: ${s.files.parsed} files parsed, ${s.seen} functions seen, ${s.kept} kept`);
  for (const [lang, c] of Object.entries(s.languages)) {
    if (!c.seen && !c.files) continue;
    lines.push(`  ${lang.padEnd(5)}  files ${c.files}, seen ${c.seen}, kept ${c.kept}; dropped: ${dropLine(c.dropped)}`);
  }
  const f = s.files;
  const skipped = [
    f.excludedPath && `${f.excludedPath} under vendor/build/target/hidden folders`,
    f.binary && `${f.binary} binary`,
    f.nonUtf8 && `${f.nonUtf8} not UTF-8`,
    f.tooLarge && `${f.tooLarge} too large`,
    f.timedOut.length && `${f.timedOut.length} past the parse deadline`,
  ].filter(Boolean);
  if (skipped.length) lines.push(`  files skipped: ${skipped.join(', ')}`);
  for (const p of f.timedOut) lines.push(`  parse deadline passed, skipped: ${p} (raise --parse-deadline-ms to include it)`);
  return lines.join('\n');
}

function formatTotals(all: ExtractSummary[]): string {
  const dropped: Record<string, number> = {};
  for (const r of DROP_RULES) dropped[r] = all.reduce((n, s) => n + s.dropped[r], 0);
  const seen = all.reduce((n, s) => n + s.seen, 0);
  const kept = all.reduce((n, s) => n + s.kept, 0);
  return `total over ${all.length} repositories: seen ${seen}, kept ${kept}; dropped: ${dropLine(dropped)}`;
}
