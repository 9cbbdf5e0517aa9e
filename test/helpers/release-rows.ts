/**
 * Rows shaped like the public release's detailed_results.jsonl and summary.json, written for this
 * project from the format notes (the shared notes' xrepotest-release.md §1 and §5, §7): the base task
 * record, then one element per response in `test`, `logs`, `checks`, `coverage_stats` and, when the
 * harness ran with --enable_mutation, `mutation_scores`. A response that did not compile has
 * `coverage_stats` null and `checks.coverage` null; a task without responses has empty arrays.
 */

export interface ResponseSpec {
  compiled?: boolean;
  passed?: boolean;
  invoked?: boolean;
  /** covered / total focal lines; null: not measured (the release's null entry). */
  cov?: [number, number] | null;
  /** The mutation phase's entry; undefined: not run (null entry). `ok` is checks.mutation. */
  mutation?: { ok: boolean; score: number; killed: number; total: number };
}

export interface RowSpec {
  task: number;
  language?: string;
  repo?: string;
  /** Focal lines start..end (inclusive). */
  lines?: [number, number];
  responses: ResponseSpec[];
  /** Whether the harness ran with mutation enabled (mutation_scores present). */
  mutation?: boolean;
}

export function releaseRow(spec: RowSpec): Record<string, unknown> {
  const language = spec.language ?? 'go';
  const [start, end] = spec.lines ?? [10, 29];
  const name = `Fn${spec.task}`;
  const row: Record<string, unknown> = {
    task_id: spec.task,
    function_name: name,
    file_path: `${spec.repo ?? 'go-master'}/pkg/f${spec.task}.go`,
    focal_code: `func ${name}() int { return 1 }`,
    file_content: `package pkg\n\nfunc ${name}() int { return 1 }\n`,
    language,
    function_component: { name, signature: `func ${name}() int`, start_line: start, end_line: end },
    metadata: { package: 'pkg', class_name: '', class_signature: '' },
    test: spec.responses.map((_, i) => `func Test${name}_${i}(t *testing.T) { ${name}() }`),
    logs: spec.responses.map((r) => (r.compiled === false ? 'compile error: undefined: x' : r.passed ? 'ok  \tpkg\t0.01s' : '--- FAIL: TestX')),
    checks: spec.responses.map((r) => {
      const compiled = r.compiled ?? r.passed ?? false;
      const check: Record<string, unknown> = { compilation: compiled, tests: r.passed ?? false, coverage: compiled ? r.cov !== null && r.cov !== undefined : null, invocation: r.invoked ?? false };
      if (r.mutation) check.mutation = r.mutation.ok;
      return check;
    }),
    coverage_stats: spec.responses.map((r) => (r.cov ? { covered_lines: r.cov[0], total_lines: r.cov[1] } : null)),
  };
  if (spec.mutation) {
    row.mutation_scores = spec.responses.map((r) =>
      r.mutation
        ? { mutation_score: r.mutation.score, killed_count: r.mutation.killed, escaped_count: r.mutation.total - r.mutation.killed, total_count: r.mutation.total, error_message: r.mutation.ok ? '' : 'No mutants were generated.' }
        : null,
    );
  }
  return row;
}

/** A row in the shape the harness writes for a task whose response list was empty (it is not evaluated). */
export function emptyReleaseRow(task: number, language = 'go', mutation = false): Record<string, unknown> {
  return releaseRow({ task, language, responses: [], mutation });
}

export const jsonl = (rows: readonly unknown[]): string => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';
