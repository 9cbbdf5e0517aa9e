import type { MutationOutcome } from '../../src/engine/report/slots';
import type { FailureCategory } from '../../src/engine/score/types';
import type { ResultRecord } from '../../src/engine/store/results';

/** Shared by test/unit/report.test.ts and test/integration/report.test.ts: result records as `xrepotest run` writes them. */

export interface SlotSpec {
  language?: string;
  repo?: string;
  task?: number;
  id?: string | null;
  sample?: number;
  round?: number;
  mode?: string | null;
  model?: string | null;
  provider?: string | null;
  baseline?: boolean;
  compiled?: boolean;
  passed?: boolean;
  /** covered / total focal lines */
  cov?: [number, number];
  invoked?: boolean;
  strict?: boolean;
  failure?: FailureCategory | null;
  mutation?: MutationOutcome | null;
}

/** A result record in the shape `xrepotest run` writes, with only what the reports read filled in. */
export function result(s: SlotSpec): ResultRecord {
  const language = s.language ?? 'go';
  const passed = s.passed ?? false;
  const compiled = s.compiled ?? passed;
  const [covered, total] = s.cov ?? [0, 0];
  const r = {
    task_id: s.task ?? 0,
    ...(s.id === null ? {} : { id: s.id ?? `${language}-${s.task ?? 0}` }),
    function_name: 'f',
    file_path: `${s.repo ?? `${language}-repo`}/src/f`,
    focal_code: '',
    file_content: '',
    language,
    function_component: { name: 'f', signature: 'f', start_line: 1, end_line: 30 },
    metadata: { class_name: '', class_signature: '' },
    test: [''],
    logs: [''],
    checks: [{ compilation: compiled, tests: passed, coverage: covered > 0, invocation: s.invoked ?? passed }],
    coverage_stats: [{ covered_lines: covered, total_lines: total, coverage: total ? (covered / total) * 100 : 0, covered_line_numbers: [], executable_line_numbers: [] }],
    xrt: {
      sample: s.sample ?? 0,
      round: s.round ?? 0,
      mode: s.mode === undefined ? 'standard' : s.mode,
      provider: s.provider === undefined ? 'anthropic' : s.provider,
      model: s.model === undefined ? 'model-x' : s.model,
      baseline: s.baseline ?? false,
      test_hash: 'h',
      language,
      invocation_strict: s.strict ?? s.invoked ?? passed,
      failure_category: s.failure === undefined ? (passed ? null : compiled ? 'logic-assertion' : 'syntactic-compilation') : s.failure,
      ...(s.mutation === undefined ? {} : { mutation: s.mutation }),
    },
  };
  return r as unknown as ResultRecord;
}

/** n slots of which the first `pass` pass (task ids from `start`). */
export function run(language: string, n: number, pass: number, extra: SlotSpec = {}, start = 0): ResultRecord[] {
  return Array.from({ length: n }, (_, i) => result({ language, task: start + i, passed: i < pass, cov: i < pass ? [3, 4] : [0, 4], ...extra }));
}
