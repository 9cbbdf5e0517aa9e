import Ajv from 'ajv';
import * as path from 'node:path';
import { parseLanguageId, type LanguageId } from '../languages';
import { repositoryLabelOf, taskPathProblem, TASK_PATH_RULE } from '../tasks/task-path';
import { describeErrors } from './our-rows';
import { coverageOf, fieldProblem, flagOf, focalLineCount, mutationEntryOf, type Read } from './slot-fields';
import type { Slot } from './slots';

/**
 * Rows of the public release's `detailed_results.jsonl` as its harness writes them (notes §1, base
 * `evaluator.py`): the task record plus one element per response in `test[]`, `logs[]`, `checks[]`
 * (`{compilation, tests, coverage, invocation, mutation?}`), `coverage_stats[]` (`{covered_lines,
 * total_lines, …}` or null where the response did not compile) and, with mutation enabled,
 * `mutation_scores[]` (`{mutation_score 0..1, killed_count, total_count, …}` or null). No `xrt`.
 *
 * Each response is one slot. The release's summary divides by n x rows, n the longest `test[]` of
 * the file, so a row with fewer responses (or none: `test: []`) has zero slots to make up the
 * difference; they are made here, so every rate of `report` is the harness's own for the same rows.
 */

/** The release asks for at most 10 responses per task; far more is not a result file's row. */
export const MAX_RESPONSES = 100;

const perResponse = { type: 'array', maxItems: MAX_RESPONSES } as const;

export const RELEASE_ROW_SCHEMA = {
  type: 'object',
  required: ['task_id', 'language', 'file_path', 'test', 'checks'],
  properties: {
    task_id: { type: ['integer', 'string'], minimum: 0, maxLength: 500 },
    language: { type: 'string', maxLength: 40 },
    function_name: { type: 'string' },
    file_path: { type: 'string' },
    function_component: { type: 'object' },
    test: perResponse,
    logs: perResponse,
    checks: perResponse,
    coverage_stats: perResponse,
    mutation_scores: perResponse,
  },
} as const;

const ajv = new Ajv({ allErrors: true, strict: false });
const validate = ajv.compile(RELEASE_ROW_SCHEMA);

/** What the release's harness does not record, said wherever its rows are reported. */
export const RELEASE_MISSING_FIELDS = ['failure category', 'strict invocation', 'environment verdicts', 'timings'] as const;

/** A row that means to be the release's: its per-response arrays and none of our `xrt`. */
export function looksLikeReleaseRow(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || 'xrt' in value) return false;
  const v = value as Record<string, unknown>;
  return 'test' in v && 'checks' in v;
}

/** The release's context-mode folder names (`results/<lang>/<mode>/<model>/`) and ours. */
const RELEASE_MODES: Record<string, string> = {
  standard: 'standard',
  file_context: 'file',
  lsp_context: 'lsp',
  rag_bm25: 'bm25',
  rag_dense: 'dense',
};

/**
 * Mode and model of a row, from where the release's pipeline writes its file:
 * `results/<lang>/<mode>/<model>/detailed_results.jsonl` (notes §1). Only when the language folder
 * is the row's own language; otherwise they are unknown rather than guessed from other folder names.
 */
export function experimentFromPath(file: string, language: LanguageId): { mode: string; model: string } | null {
  const parts = path.resolve(file).split(path.sep);
  if (parts.length < 4 || parts[parts.length - 1] !== 'detailed_results.jsonl') return null;
  const [lang, mode, model] = parts.slice(-4, -1);
  if (parseLanguageId(lang) !== language) return null;
  return { mode: RELEASE_MODES[mode] ?? mode, model };
}

export const UNKNOWN_EXPERIMENT = '(unknown)';

/** One row, read: its present responses' slots, made up to n slots by `slotsOf`. */
export interface ReleaseRow {
  language: LanguageId;
  languageTaskId: string;
  repository: string;
  responses: number;
  mutationEnabled: boolean;
  /** Whether mode and model came from the file's path. */
  experimentKnown: boolean;
  /** The slots of the responses it has (sample = the response's index). */
  present: Slot[];
  /** What every slot of the row shares; kept instead of the row, whose file_content can be large. */
  base: SlotBase;
}

type SlotBase = Omit<Slot, 'sample' | 'compiled' | 'passed' | 'coverage' | 'invoked' | 'mutationRan' | 'mutationScore' | 'mutationCounts'>;

/** A slot with no response: the harness counts it as zero in every rate. */
function emptySlot(base: SlotBase, sample: number): Slot {
  return { ...base, sample, compiled: false, passed: false, coverage: 0, invoked: false, mutationRan: false, mutationScore: null, mutationCounts: null };
}

/**
 * One row of the release, or why it is refused. A row's identity must be sound (task_id, language,
 * file_path, arrays no longer than its tests: the harness would count extra checks above 100 %); a
 * response's measured values that are not (a string count, a coverage above the function's lines)
 * count as missing and are named in `problems`.
 */
export function readReleaseRow(value: unknown, file: string): { row: ReleaseRow; problems: string[] } | { problem: string } {
  if (!validate(value)) return { problem: `refused (a row of the release's detailed_results.jsonl): ${describeErrors(validate.errors)}` };
  const r = value as unknown as {
    task_id: number | string;
    language: string;
    file_path: string;
    function_component?: unknown;
    test: unknown[];
    checks: unknown[];
    logs?: unknown[];
    coverage_stats?: unknown[];
    mutation_scores?: unknown[];
  };
  const language = parseLanguageId(r.language);
  if (!language) return { problem: `refused: unknown language ${JSON.stringify(r.language)} (expected rust, go, php, ruby or julia)` };
  const pathProblem = taskPathProblem(r.file_path);
  if (pathProblem) return { problem: `refused: file_path ${JSON.stringify(r.file_path)} ${pathProblem}; ${TASK_PATH_RULE}` };
  const responses = r.test.length;
  for (const field of ['checks', 'logs', 'coverage_stats', 'mutation_scores'] as const) {
    const n = r[field]?.length ?? 0;
    if (n > responses) return { problem: `refused: ${field} has ${n} entries for ${responses} test${responses === 1 ? '' : 's'} (one per response)` };
  }
  const problems = new Set<string>();
  const use = <T>(field: string, read: Read<T>, fallback: T): T => {
    if (read.problem !== undefined) problems.add(fieldProblem(field, read.problem));
    return read.value ?? fallback;
  };
  const languageTaskId = `${language}:${String(r.task_id)}`;
  const experiment = experimentFromPath(file, language);
  const focalLines = focalLineCount(r.function_component);
  const base: SlotBase = {
    taskId: null,
    languageTaskId,
    row: JSON.stringify(['release', path.resolve(file), languageTaskId]),
    harness: 'release',
    round: 0,
    language,
    repository: repositoryLabelOf(r),
    mode: experiment?.mode ?? UNKNOWN_EXPERIMENT,
    model: experiment?.model ?? UNKNOWN_EXPERIMENT,
    baseline: false,
    // Not recorded by the release's harness: unknown, never "none" or false.
    invokedStrict: null,
    failure: null,
    failureRecorded: false,
    environment: null,
    // The release has no improvement rounds.
    suite: null,
  };
  if (!Array.isArray(r.coverage_stats) && responses > 0) problems.add('coverage_stats is absent');
  const present = r.test.map((_, i): Slot => {
    const check = r.checks[i];
    if (check === undefined) {
      problems.add('checks[i] is absent for a test');
      return emptySlot(base, i);
    }
    const flag = (f: string): boolean => use('checks[i]', flagOf(check, f), false);
    const mutation = use('mutation_scores[i]', mutationEntryOf(r.mutation_scores?.[i]), null);
    const mutated = flag('mutation');
    if (mutated && mutation?.score == null) problems.add('checks[i].mutation is true without a mutation_scores[i].mutation_score');
    return {
      ...base,
      sample: i,
      compiled: flag('compilation'),
      passed: flag('tests'),
      coverage: use('coverage_stats[i]', coverageOf(r.coverage_stats?.[i], focalLines), 0),
      invoked: flag('invocation'),
      mutationRan: mutation !== null,
      // The harness's own per-slot score where its mutation run succeeded (checks[i].mutation).
      mutationScore: mutated && mutation?.score != null ? mutation.score : null,
      mutationCounts: mutation ? { killed: mutation.killed, total: mutation.total } : null,
    };
  });
  return {
    row: {
      language,
      languageTaskId,
      repository: base.repository,
      responses,
      mutationEnabled: Array.isArray(r.mutation_scores),
      experimentKnown: experiment !== null,
      present,
      base,
    },
    problems: [...problems],
  };
}

/** Every slot of a file's rows: n per row, n the longest `test[]` of the file (at least 1, so a row with no response is one zero slot). */
export function releaseSlots(rows: readonly ReleaseRow[]): { slots: Slot[]; perTask: number } {
  const perTask = rows.reduce((n, r) => Math.max(n, r.responses), 1);
  const slots = rows.flatMap((r) => [...r.present, ...Array.from({ length: perTask - r.present.length }, (_, k) => emptySlot(r.base, r.present.length + k))]);
  return { slots, perTask };
}
