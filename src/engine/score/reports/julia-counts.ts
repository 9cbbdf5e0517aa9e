import type { TestCaseResult, TestReport } from '../types';
import { firstPair, withDetails } from './report';

const COUNTS = /^XRT_COUNTS pass=(\d+) fail=(\d+) error=(\d+) broken=(\d+)\s*$/gm;

// Julia's Test prints one block per failing @test: "name: Test Failed at file:line", then
// "  Expression: a == b" and "   Evaluated: 1 == 2".
const FAILED_AT = /^(?:(.*?): )?(Test Failed|Error During Test) at (\S+)$/;
const JULIA_PAIRS = [{ re: /^\s*Evaluated: (.+?) == (.+)$/m, order: 'actual-expected' as const }];

function failureCases(output: string): TestCaseResult[] {
  const lines = output.split('\n');
  const cases: TestCaseResult[] = [];
  lines.forEach((line, i) => {
    const m = FAILED_AT.exec(line.trim());
    if (!m) return;
    let end = i + 1;
    while (end < lines.length && /^\s+\S/.test(lines[end]) && !FAILED_AT.test(lines[end].trim())) end++;
    const message = lines.slice(i + 1, end).join('\n').trim();
    cases.push(withDetails({ name: m[3], status: m[2] === 'Test Failed' ? 'failed' : 'errored' }, message || undefined, firstPair(message, JULIA_PAIRS)));
  });
  return cases;
}

/**
 * The `XRT_COUNTS pass=N fail=N error=N broken=N` line our run.jl prints (the last one, if several);
 * broken tests count as skipped. Without the line the run never reached the end: ran 0. Julia's Test
 * names only failing tests, so `cases` lists those (by file:line), not every test.
 */
export function parseJuliaCounts(output: string): TestReport {
  const all = [...output.matchAll(COUNTS)];
  const last = all[all.length - 1];
  if (!last) return { ran: 0, passed: 0, failed: 0, errored: 0, skipped: 0, cases: [], outsideErrors: 0 };
  const [passed, failed, errored, skipped] = last.slice(1, 5).map(Number);
  return { ran: passed + failed + errored, passed, failed, errored, skipped, cases: failureCases(output), outsideErrors: 0 };
}
