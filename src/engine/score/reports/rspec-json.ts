import type { TestCaseResult, TestReport } from '../types';
import { emptyReport, firstPair, reportFromCases, withDetails } from './report';

interface RspecExample {
  full_description?: string;
  description?: string;
  status?: string;
  exception?: { class?: string; message?: string };
}

interface RspecJson {
  examples?: RspecExample[];
  summary?: { errors_outside_of_examples_count?: number };
}

// RSpec's matchers fail with these; anything else raised in an example is an error, as JUnit has it.
const EXPECTATION_FAILURES = /ExpectationNotMetError|MultipleExpectationsNotMetError/;

const RSPEC_PAIRS = [{ re: /expected:?\s+(.+)\n\s*got:?\s+(.+)/, order: 'expected-actual' as const }];

function caseOf(e: RspecExample): TestCaseResult {
  const name = e.full_description ?? e.description ?? '';
  if (e.status === 'passed') return { name, status: 'passed' };
  if (e.status === 'pending') return { name, status: 'skipped' };
  const cls = e.exception?.class ?? '';
  const status = EXPECTATION_FAILURES.test(cls) ? 'failed' : 'errored';
  const raw = (e.exception?.message ?? '').trim();
  const message = status === 'errored' && cls ? `${cls}: ${raw}` : raw;
  return withDetails({ name, status }, message || undefined, raw ? firstPair(raw, RSPEC_PAIRS) : undefined);
}

/** RSpec's `--format json` -> TestReport. No file or an unreadable one is a run with no report: ran 0. */
export function parseRspecJson(json: string): TestReport {
  let doc: RspecJson;
  try {
    doc = JSON.parse(json) as RspecJson;
  } catch {
    return emptyReport();
  }
  if (!doc || typeof doc !== 'object') return emptyReport();
  const cases = (doc.examples ?? []).map(caseOf);
  return reportFromCases(cases, Number(doc.summary?.errors_outside_of_examples_count ?? 0) || 0);
}
