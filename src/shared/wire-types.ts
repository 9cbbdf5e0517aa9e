/**
 * The engine's values as they travel between the engine server and the extension. They are the
 * wire's own shapes (copied, not imported: src/shared takes nothing from src/engine), and the server
 * maps the engine's values to them in src/server/wire-mapping.ts, where an engine change that breaks
 * a shape fails the typecheck instead of the editor.
 */

// ── The environment check ──────────────────────────────────────────────────────────────────────

/** Why a language cannot run with an executor, for people (the engine's EnvironmentVerdict). */
export interface WireEnvironmentVerdict {
  cause: string;
  /** A few words for the status bar: `julia missing`. */
  short: string;
  fix: string;
  command?: string;
  setting?: string;
}

export interface WireLanguageReadiness {
  language: string;
  displayName: string;
  /** null: the local executor can run it; else why not and what to install. */
  local: string | null;
  localMissing: string[];
  /** null where the executor can run the language; else the user's verdict. */
  verdicts: { local: WireEnvironmentVerdict | null; docker: WireEnvironmentVerdict | null };
  /** The docker image to run it in, or why there is none. */
  docker: { image: string } | { missing: string };
  /** The headless language server for LSP context, or what to install. */
  languageServer: { command: string } | { missing: string };
}

export interface WireEnvironmentReport {
  /** `local: bubblewrap …` or its warning. */
  localIsolation: string;
  /** What a generated test can see and change, per executor, one line each. */
  exposes: { local: string[]; docker: string[] };
  /** The Docker Engine API that answered (Docker or Podman), or why none did. */
  engine: { description: string } | { missing: string; tried?: string[] };
  languages: WireLanguageReadiness[];
  /** What to install, one line each; empty when everything is there. */
  missing: string[];
}

// ── LSP context ───────────────────────────────────────────────────────────────────────────────

/** The paper's three kinds of LSP context (Appendix B), each a list of source snippets. */
export interface WireLspContext {
  argumentDefinitions: string[];
  calleeDefinitions: string[];
  conditionReferences: string[];
}

// ── A benchmark's summary ─────────────────────────────────────────────────────────────────────

/** One block of summary.json (the release's keys with its meanings, on its percentage scale, and ours). */
export interface WireSummaryBlock {
  /** Tasks, as in the release (METRICS.md item 11). */
  total_samples: number;
  compiled_rate: number;
  test_pass_rate: number;
  line_coverage: number;
  invocation_rate: number;
  mutation_testing?: { mutation_tests_run: number; total_mutants_killed: number; total_mutants_count: number; avg_mutation_score: number; mutation_run_rate: number };
  total_tasks: number;
  /** N: the denominator of every rate. */
  total_slots: number;
  mutation_score?: number;
  mutation_score_at_pass?: number | null;
  coverage_at_pass: number;
  passing_samples: number;
  /** Null where some slot's harness does not record it. */
  strict_invocation_rate: number | null;
  /** Per failure category (and `none`, `not_recorded`), percent of the scored slots. */
  failure_categories: Record<string, number>;
  baseline_samples: number;
  environment_samples: number;
  environment_reasons: Array<{ cause: string; reason: string; count: number }>;
  scored_by: { xrepotest: number; release_harness: number };
}

export interface WireSummary extends WireSummaryBlock {
  languages: Record<string, WireSummaryBlock>;
}

// ── Stored results and their annotations ────────────────────────────────────────────────────────

/** What an annotator says about a result (the engine's store keeps the same list). */
export const WIRE_ANNOTATION_LABELS = ['correct', 'wrong-assertion', 'hallucinated-api', 'flaky', 'environment', 'other'] as const;
export type WireAnnotationLabel = (typeof WIRE_ANNOTATION_LABELS)[number];

/** One saved annotation; a null label clears the result's annotation. */
export interface WireAnnotation {
  key: string;
  label: WireAnnotationLabel | null;
  note: string;
  /** ISO 8601. */
  time: string;
}

/** What a list of results shows per result: small, so a big run's list stays small. */
export interface WireResultRow {
  key: string;
  language: string;
  repository: string;
  functionName: string;
  filePath: string;
  outcome: 'passed' | 'failed' | 'nocompile';
  category: string | null;
  categoryLabel: string | null;
  /** Percent of the focal function's executable lines covered; null where none were measured. */
  coverage: number | null;
  covered: number;
  executable: number;
  /** Why it did not pass, shortened; null when it passed. */
  reason: string | null;
  sample: number;
  round: number;
  model: string | null;
  annotation: Pick<WireAnnotation, 'label' | 'note' | 'time'> | null;
  /** A suite from improvement rounds (its tests), a row of its own beside the slot's first test; null: one test. */
  suite: number | null;
}

/**
 * One whole stored result (a line of results.jsonl, the release's record shape plus `xrt`), as the
 * editor reads it: the fields below are the ones it uses; the server sends the record as it is stored.
 */
export interface WireResultRecord {
  task_id: number | string;
  function_name: string;
  file_path: string;
  file_content: string;
  function_component: { name: string; start_line: number; end_line: number };
  test: string[];
  logs: string[];
  checks: Array<{ compilation: boolean; tests: boolean; coverage: boolean; invocation: boolean }>;
  coverage_stats: Array<{ covered_lines: number; total_lines: number; coverage: number; covered_line_numbers: number[]; executable_line_numbers: number[] }>;
  xrt: {
    sample: number;
    round: number;
    mode: string | null;
    provider: string | null;
    model: string | null;
    language: string;
    reason: string | null;
    failure_category: string | null;
    failure_label: string | null;
    failure_rule: string | null;
    failure_evidence: string | null;
    error: string | null;
    test_report: { cases: Array<{ name: string; status: string; message?: string }> };
    /** Set for a response of the release's detailed_results.jsonl: who scored it, and what it did not record. */
    harness?: 'release';
    not_recorded?: string[];
  };
}

/** Where a result's focal file is: in a checkout, or only in the task's own copy (and why). */
export type WireFocalSource = { kind: 'checkout'; file: string } | { kind: 'task'; why: string };

/** An export of the annotated results. */
export interface WireExportOutcome {
  records: number;
  annotated: number;
  /** Annotations whose result is not in results.jsonl (a test regenerated since): not exported. */
  orphaned: number;
}
