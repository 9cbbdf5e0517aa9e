import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DEFAULT_LIMITS } from '../../src/engine/execute/types';
import { DEFAULT_TIMEOUTS } from '../../src/engine/execute/toolchain';
import type { Executor } from '../../src/engine/execute/types';
import { RELEASE_FILTERS } from '../../src/engine/extract/filters';
import type { ResultRecord } from '../../src/engine/store/results';
import { ScoringRunFolder } from '../../src/engine/task/scoring-run-folder';
import type { ToolServices } from '../../src/engine/tools';
import { Workspace } from '../../src/engine/tools/workspace';
import { fixture } from './paths';

/* Shared by test/unit/tools.test.ts and test/unit/tools-trust.test.ts: the agents' tools without a server. */

/** A throwaway copy of a fixture project (the tools' workspace), and a folder outside it. */
export function fixtureWorkspace(name: string): { root: string; outside: string; cleanup(): void } {
  const top = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-tools-'));
  const root = path.join(top, name);
  fs.cpSync(fixture(name), root, { recursive: true });
  const outside = path.join(top, 'outside');
  fs.mkdirSync(outside);
  return { root, outside, cleanup: () => fs.rmSync(top, { recursive: true, force: true }) };
}

/** Services as the MCP server builds them, with the baseline provider; `executor` refuses unless given. */
export function toolServices(root: string, runs: string, executor?: () => Promise<Executor>): ToolServices & { logged: string[] } {
  const logged: string[] = [];
  return {
    workspace: Workspace.open(root),
    executor: executor ?? (() => Promise.reject(new Error('no executor in this test'))),
    executorKind: 'local',
    generation: { provider: 'baseline', mode: 'standard', credentials: { from: 'environment' }, hints: { provider: '--provider', model: 'pass --model', mode: '--mode', embedding: '', checkout: '' } },
    limits: { testMs: DEFAULT_TIMEOUTS.testMs, memoryBytes: DEFAULT_LIMITS.memoryBytes },
    filters: { minLines: RELEASE_FILTERS.minLines, maxLines: RELEASE_FILTERS.maxLines },
    scorings: new ScoringRunFolder(path.join(runs, 'scorings')),
    benchRuns: path.join(runs, 'bench'),
    concurrency: 1,
    log: (line) => void logged.push(line),
    logged,
  };
}

/** A stored result of a workspace function, as the task step writes it, with what the tools read filled in. */
export function scoredRecord(s: {
  repo: string;
  file: string;
  fn: string;
  focalCode: string;
  start: number;
  end: number;
  executable: number[];
  covered: number[];
  passed: boolean;
  feedback?: string | null;
  provider?: string;
}): ResultRecord {
  return {
    task_id: 0,
    id: `${s.repo}-${s.fn}`,
    function_name: s.fn,
    file_path: `${s.repo}/${s.file}`,
    focal_code: s.focalCode,
    file_content: '',
    language: 'go',
    function_component: { name: s.fn, signature: s.fn, start_line: s.start, end_line: s.end },
    metadata: { class_name: '', class_signature: '' },
    test: ['func TestX(t *testing.T) { if F() != 1 { t.Errorf("no") } }'],
    logs: [''],
    checks: [{ compilation: true, tests: s.passed, coverage: s.covered.length > 0, invocation: true }],
    coverage_stats: [
      {
        covered_lines: s.covered.length,
        total_lines: s.executable.length,
        coverage: s.executable.length ? Math.round((10000 * s.covered.length) / s.executable.length) / 100 : 0,
        covered_line_numbers: s.covered,
        executable_line_numbers: s.executable,
      },
    ],
    xrt: {
      sample: 0,
      round: 0,
      mode: null,
      provider: s.provider ?? 'agent',
      model: 'agent',
      baseline: false,
      test_hash: 'abc',
      language: 'go',
      executor: { kind: 'local', engine: 'local', versions: {} },
      placement: null,
      invocation_strict: true,
      failure_category: s.passed ? null : 'logic-assertion',
      failure_label: s.passed ? null : 'Logic & Assertion',
      failure_rule: s.passed ? null : 'assertion',
      failure_evidence: null,
      reason: s.passed ? null : '1 of 1 tests failed',
      feedback: s.feedback ?? null,
      test_report: { ran: 1, passed: s.passed ? 1 : 0, failed: s.passed ? 0 : 1, errored: 0, skipped: 0, outsideErrors: 0, cases: [{ name: 'TestX', status: s.passed ? 'passed' : 'failed', ...(s.passed ? {} : { message: s.feedback ?? 'no' }) }] },
      phases: [],
      error: null,
    },
  };
}
