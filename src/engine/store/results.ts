import type { Evaluation } from '../execute/evaluate';
import type { ResultMutation } from '../mutate/run';
import { feedbackOf } from '../execute/feedback';
import { FAILURE_CATEGORY_LABELS, type FailureCategory } from '../score/types';
import type { GenerationOrigin } from '../tasks/generations';
import type { TaskRecord } from '../tasks/record';
import { redact } from '../util/redact';

/**
 * A result in the release's `detailed_results.jsonl` shape — the task record plus `test[]`, `logs[]`,
 * `checks[]`, `coverage_stats[]`, one element per sample — with what we add under `xrt`.
 */
export interface ResultRecord extends TaskRecord {
  test: string[];
  logs: string[];
  checks: Array<{ compilation: boolean; tests: boolean; coverage: boolean; invocation: boolean }>;
  coverage_stats: Array<{ covered_lines: number; total_lines: number; coverage: number; covered_line_numbers: number[]; executable_line_numbers: number[] }>;
  xrt: {
    sample: number;
    /** Repair round, context mode, provider and model of the test (null where the generation did not say). */
    round: number;
    mode: string | null;
    provider: string | null;
    model: string | null;
    baseline: boolean;
    test_hash: string;
    language: string;
    executor: Evaluation['executor'];
    placement: Evaluation['placement'];
    invocation_strict: boolean;
    failure_category: FailureCategory | null;
    failure_label: string | null;
    failure_rule: string | null;
    failure_evidence: string | null;
    /** Why the slot did not pass, as a sentence; null when it passed. */
    reason: string | null;
    /** A passing test run again (`--reruns k`): all runs and the passing ones; absent where it was not rerun. */
    reruns?: { runs: number; passed: number };
    /** A passing test run again at the task's base commit (`--regression-check`); absent where it was not. */
    regression?: { base: string | null; verdict: 'change-revealing' | 'passes-at-base' | 'absent-at-base' | 'not-checked'; reason: string };
    /** Mutation testing of a passing test (null where not run: MS counts 0 for the slot). */
    mutation?: ResultMutation | null;
    /**
     * Improvement rounds after this passing test (`--improve-rounds n`): the suite of the kept tests,
     * merged into one test file, with its own coverage and mutation score; absent where none ran.
     */
    suite?: SuiteRecord;
    /** The trimmed log a repair round shows the model (kept so a resumed run sends the same prompt); null when it passed. */
    feedback: string | null;
    test_report: Evaluation['testReport'];
    phases: Array<{ phase: string; argv: string[]; exit_code: number | null; signal: string | null; timed_out: boolean; output_truncated: boolean; duration_ms: number }>;
    error: string | null;
  };
}

/** Why an improvement round's test was kept or dropped (docs/generation.md, "Improvement rounds"). */
export type ImprovementVerdict =
  | 'adds-coverage'
  | 'kills-mutant'
  | 'call-failed'
  | 'no-test'
  | 'environment'
  | 'does-not-compile'
  | 'does-not-pass'
  | 'does-not-invoke'
  | 'adds-nothing'
  | 'merged-suite-fails';

/** One improvement round: the candidate test and the verdict on it. */
export interface ImprovementRound {
  /** 1-based improvement round. */
  improve: number;
  /** Hash of the candidate test; null when the call failed or the reply held no test. */
  test_hash: string | null;
  kept: boolean;
  verdict: ImprovementVerdict;
  /** The verdict in words (a compile error's first line, the lines it adds…). */
  reason: string;
  /** Focal lines the candidate covered when run alone (empty when it did not pass). */
  covered_line_numbers: number[];
  /** Of those, the lines no test of the suite covered before it. */
  added_lines: number[];
  /** Mutants it detected that no test of the suite detected before it. */
  new_detected: string[];
}

/** The suite after improvement rounds: the first test and every kept one, merged by the language's conventions. */
export interface SuiteRecord {
  /** Tests in the suite: the first one and the kept ones. */
  tests: number;
  /** The merged test file, scored as one test (its coverage and mutation score below are of this file). */
  test_code: string;
  test_hash: string;
  passed: boolean;
  coverage: { covered_lines: number; total_lines: number; coverage: number; covered_line_numbers: number[]; executable_line_numbers: number[] };
  /** Mutation score of the merged suite (the first test's when no test was kept); null or absent where not run. */
  mutation?: ResultMutation | null;
  rounds: ImprovementRound[];
}

type LoggedPhase = Pick<ResultRecord['xrt']['phases'][number], 'phase' | 'argv' | 'signal'> & { exitCode: number | null; timedOut: boolean; durationMs: number };

/** The two lines that open a phase in a record's log (`$ go test …` / `# test: exit 1 in 412 ms`): written by toResultRecord, found by phaseLogsOf. */
function phaseLogHead(p: LoggedPhase): string {
  return `$ ${p.argv.join(' ')}\n# ${p.phase}: exit ${p.exitCode ?? (p.timedOut ? 'timeout' : p.signal ?? 'killed')} in ${p.durationMs} ms\n`;
}

/** One phase of a stored result: what `xrt.phases` records of it, and its part of the log. */
export type PhaseLog = ResultRecord['xrt']['phases'][number] & { output: string };

/**
 * A stored result's log cut into its phases (the log is one text, `logs[0]`, in the release's shape;
 * `xrt.phases` says which phases it holds). Null when the log cannot be cut along them: a record
 * without phases (the release's own rows), or a log whose heads redaction changed.
 */
export function phaseLogsOf(r: Pick<ResultRecord, 'logs'> & { xrt: { phases?: ResultRecord['xrt']['phases']; error?: string | null } }): PhaseLog[] | null {
  const phases = r.xrt.phases;
  const log = r.logs[0];
  if (!phases?.length || log === undefined) return null;
  const heads = phases.map((p) => phaseLogHead({ ...p, exitCode: p.exit_code, timedOut: p.timed_out, durationMs: p.duration_ms }));
  const starts: number[] = [];
  let from = 0;
  for (const head of heads) {
    const at = log.indexOf(head, from);
    if (at < 0) return null;
    starts.push(at);
    from = at + head.length;
  }
  return phases.map((p, i) => {
    const start = starts[i] + heads[i].length;
    // Phases are joined by one newline: the next head's start, less that newline, ends this one's output.
    const end = i + 1 < starts.length ? starts[i + 1] - 1 : log.length;
    return { ...p, output: log.slice(start, Math.max(start, end)) };
  });
}

const UNKNOWN_ORIGIN: GenerationOrigin = { round: 0, mode: null, provider: null, model: null, baseline: false };

export function toResultRecord(task: TaskRecord, testCode: string, sample: number, e: Evaluation, origin: GenerationOrigin = UNKNOWN_ORIGIN): ResultRecord {
  const s = e.score;
  const log = e.phases.map((p) => `${phaseLogHead(p)}${p.output}`).join('\n');
  return {
    ...task,
    test: [testCode],
    // What the test printed is stored and shown: redacted of known secrets (providers helper's hunk).
    logs: [redact(e.error ? `xrepotest: ${e.error}\n${log}` : log)],
    checks: [{ compilation: s.compiled, tests: s.passed, coverage: s.coverage.covered.length > 0, invocation: s.invocation.invoked }],
    coverage_stats: [
      {
        covered_lines: s.coverage.covered.length,
        total_lines: s.coverage.executable.length,
        coverage: Math.round(s.coverageRatio * 10000) / 100,
        covered_line_numbers: s.coverage.covered,
        executable_line_numbers: s.coverage.executable,
      },
    ],
    xrt: {
      sample,
      ...origin,
      test_hash: e.testHash,
      language: e.language,
      executor: e.executor,
      placement: e.placement,
      invocation_strict: s.invocation.strict,
      failure_category: s.failure?.category ?? null,
      failure_label: s.failure ? FAILURE_CATEGORY_LABELS[s.failure.category] : null,
      failure_rule: s.failure?.rule ?? null,
      failure_evidence: s.failure?.evidence != null ? redact(s.failure.evidence) : null,
      reason: s.reason != null ? redact(s.reason) : s.reason,
      ...(s.reruns ? { reruns: { ...s.reruns } } : {}),
      ...(s.regression ? { regression: { ...s.regression, reason: redact(s.regression.reason) } } : {}),
      feedback: s.passed ? null : feedbackOf(e),
      test_report: { ...e.testReport, cases: e.testReport.cases.map((c) => (c.message ? { ...c, message: redact(c.message) } : c)) },
      phases: e.phases.map((p) => ({
        phase: p.phase,
        argv: p.argv,
        exit_code: p.exitCode,
        signal: p.signal,
        timed_out: p.timedOut,
        output_truncated: p.outputTruncated,
        duration_ms: p.durationMs,
      })),
      error: e.error != null ? redact(e.error) : null,
    },
  };
}

/** Environment failures grouped by cause and reason, most frequent first. */
export function environmentReasons(records: ReadonlyArray<{ cause: string; reason: string }>): Array<{ cause: string; reason: string; count: number }> {
  const counts = new Map<string, { cause: string; reason: string; count: number }>();
  for (const r of records) {
    const key = `${r.cause}\u0000${r.reason}`;
    const c = counts.get(key);
    if (c) c.count++;
    else counts.set(key, { ...r, count: 1 });
  }
  return [...counts.values()].sort((a, b) => b.count - a.count || (a.reason < b.reason ? -1 : a.reason > b.reason ? 1 : 0));
}
