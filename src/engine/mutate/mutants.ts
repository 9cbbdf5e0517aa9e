import { createHash } from 'node:crypto';
import type { Node, Tree } from 'web-tree-sitter';
import { adapterFor } from '../languages';
import type { LanguageId } from '../parse/grammars';
import { parseWithDeadline } from '../parse/parse';
import type { TaskRecord } from '../tasks/record';
import { sentinelsOf, type Sentinel } from './sentinels';
import { MUTATION_OPERATORS, type MutationEdit, type MutationOperator } from './types';

export const DEFAULT_MAX_MUTANTS = 40;

/** Julia's grammar is slow on big files (parse.ts); one deadline per parse. */
const PARSE_DEADLINE_MS = 10_000;

/**
 * When two operators produce the same file (Go's `return "x"` emptied by the constant and the
 * return-value operators), the more specific one names the mutant.
 */
const DEDUP_PREFERENCE: readonly MutationOperator[] = ['return-value', 'statement-deletion', 'logical', 'relational', 'arithmetic', 'constant'];

export interface Mutant extends MutationEdit {
  /** 12 hex digits of a hash of the edit: the same edit of the same file has the same id in every run. */
  id: string;
  /** The whole focal file with the edit applied. */
  source: string;
}

export interface MutantOptions {
  /** Only edits starting on these lines (1-based) are kept: a test cannot kill what it never runs. */
  coveredLines?: Iterable<number>;
  /** At most this many mutants, spread evenly over the operators (default 40). */
  maxMutants?: number;
}

export class FocalFunctionNotFoundError extends Error {}

export function mutantId(edit: MutationEdit): string {
  return createHash('sha256')
    .update([edit.operator, edit.startIndex, edit.endIndex, edit.original, edit.replacement].join('\0'))
    .digest('hex')
    .slice(0, 12);
}

async function parse(language: LanguageId, source: string): Promise<Tree> {
  const parsed = await parseWithDeadline(language, source, PARSE_DEADLINE_MS);
  if (!('tree' in parsed)) throw new Error(`parsing took longer than ${PARSE_DEADLINE_MS / 1000} s`);
  return parsed.tree;
}

/** The definition node spanning exactly the task's lines, as the language's extractor lists it. */
function focalNode(tree: Tree, task: TaskRecord, language: LanguageId): Node {
  const { start_line, end_line } = task.function_component;
  const fns = adapterFor(language).listFunctions(tree, task.file_content);
  const fn = fns.find((f) => f.startLine === start_line && f.endLine === end_line);
  if (!fn) throw new FocalFunctionNotFoundError(`${task.file_path}: no function spans lines ${start_line}-${end_line}`);
  return fn.node;
}

/**
 * Every candidate edit of the task's focal function, in source order, each inside the function's
 * lines (before any check that the result parses).
 */
export async function mutationEdits(task: TaskRecord, language: LanguageId): Promise<MutationEdit[]> {
  const tree = await parse(language, task.file_content);
  try {
    const fn = focalNode(tree, task, language);
    const { start_line, end_line } = task.function_component;
    // The language's operators (languages/<id>/mutation.ts), from its adapter.
    return adapterFor(language).mutationOperators(fn)
      .filter((e) => e.line >= start_line && e.line <= end_line && e.replacement !== e.original)
      .sort(bySourceOrder);
  } finally {
    tree.delete();
  }
}

function bySourceOrder(a: MutationEdit, b: MutationEdit): number {
  return (
    a.startIndex - b.startIndex ||
    a.endIndex - b.endIndex ||
    DEDUP_PREFERENCE.indexOf(a.operator) - DEDUP_PREFERENCE.indexOf(b.operator) ||
    (a.replacement < b.replacement ? -1 : a.replacement > b.replacement ? 1 : 0)
  );
}

export function applyEdit(source: string, edit: MutationEdit): string {
  return source.slice(0, edit.startIndex) + edit.replacement + source.slice(edit.endIndex);
}

/**
 * Whether the mutated file still parses inside the focal function: no ERROR or MISSING node in the
 * smallest node spanning the function's (shifted) range.
 */
async function parsesCleanly(language: LanguageId, mutated: string, fnStart: number, fnEnd: number): Promise<boolean> {
  const tree = await parse(language, mutated);
  try {
    const span = tree.rootNode.descendantForIndex(fnStart, Math.max(fnStart, fnEnd - 1));
    return span ? !span.hasError && !span.isMissing : false;
  } finally {
    tree.delete();
  }
}

/**
 * `max` mutants spread evenly: quotas go round-robin over the operators that have mutants left, and
 * each operator's picks are spaced evenly through its list (not just the function's first lines).
 */
export function capEvenly<T extends { operator: MutationOperator }>(items: T[], max: number): T[] {
  if (items.length <= max) return items;
  const groups = MUTATION_OPERATORS.map((op) => items.filter((m) => m.operator === op));
  const quota = groups.map(() => 0);
  for (let left = max; left > 0; ) {
    let gave = false;
    for (let g = 0; g < groups.length && left > 0; g++) {
      if (quota[g] < groups[g].length) {
        quota[g]++;
        left--;
        gave = true;
      }
    }
    if (!gave) break;
  }
  const chosen = new Set<T>();
  groups.forEach((group, g) => {
    for (let i = 0; i < quota[g]; i++) chosen.add(group[Math.floor((i * group.length) / quota[g])]);
  });
  return items.filter((m) => chosen.has(m));
}

/**
 * The task's mutants: each candidate edit applied to `file_content`, kept when the focal function
 * still parses, when it starts on a covered line (if lines are given) and when no earlier mutant made
 * the same file; in source order, capped evenly across operators.
 */
export async function generateMutants(task: TaskRecord, language: LanguageId, opts: MutantOptions = {}): Promise<Mutant[]> {
  const source = task.file_content;
  const covered = opts.coveredLines ? new Set(opts.coveredLines) : null;
  const edits = (await mutationEdits(task, language)).filter((e) => !covered || covered.has(e.line));
  const tree = await parse(language, source);
  let fnStart: number;
  let fnEnd: number;
  try {
    const fn = focalNode(tree, task, language);
    fnStart = fn.startIndex;
    fnEnd = fn.endIndex;
  } finally {
    tree.delete();
  }
  const seen = new Set<string>([source]);
  const kept: Mutant[] = [];
  for (const edit of edits) {
    const mutated = applyEdit(source, edit);
    if (seen.has(mutated)) continue;
    seen.add(mutated);
    const shift = edit.replacement.length - (edit.endIndex - edit.startIndex);
    if (!(await parsesCleanly(language, mutated, fnStart, fnEnd + shift))) continue;
    kept.push({ ...edit, id: mutantId(edit), source: mutated });
  }
  return capEvenly(kept, opts.maxMutants ?? DEFAULT_MAX_MUTANTS);
}

/** The focal function's sentinels (sentinels.ts) that still parse where the function is. */
export async function generateSentinels(task: TaskRecord, language: LanguageId): Promise<Sentinel[]> {
  const source = task.file_content;
  const tree = await parse(language, source);
  let made: Sentinel[];
  let fnStart: number;
  let fnEnd: number;
  try {
    const fn = focalNode(tree, task, language);
    fnStart = fn.startIndex;
    fnEnd = fn.endIndex;
    made = sentinelsOf(language, source, tree, fn);
  } finally {
    tree.delete();
  }
  const kept: Sentinel[] = [];
  for (const s of made) {
    if (await parsesCleanly(language, s.source, fnStart, fnEnd + s.source.length - source.length)) kept.push(s);
  }
  return kept;
}
