import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { TestCaseResult, TestReport } from '../types';
import { emptyReport, firstPair, reportFromCases, withDetails, type ExpectedActual } from './report';

type XmlNode = Record<string, unknown>;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  // Every element that may repeat, as an array, so one child and several look alike.
  isArray: (name) => ['testsuites', 'testsuite', 'testcase', 'failure', 'error', 'skipped'].includes(name),
});

const PHPUNIT_PAIRS = [
  { re: /^Failed asserting that (.+) matches expected (.+)\.$/m, order: 'actual-expected' as const },
  { re: /^Failed asserting that (.+) is identical to (.+)\.$/m, order: 'actual-expected' as const },
  { re: /^Failed asserting that (.+) is (true|false|null)\.$/m, order: 'actual-expected' as const },
];

/** PHPUnit's `--- Expected` / `+++ Actual` unified diff: `-` lines are expected, `+` actual, ` ` both. */
export function phpunitDiffPair(message: string): ExpectedActual | undefined {
  const lines = message.split('\n');
  const start = lines.findIndex((l, i) => l === '--- Expected' && lines[i + 1] === '+++ Actual');
  if (start < 0) return undefined;
  const expected: string[] = [];
  const actual: string[] = [];
  for (const l of lines.slice(start + 2)) {
    if (l.startsWith('@@')) continue;
    if (l === '') break; // the diff ends at the blank line before the file:line trace
    if (l.startsWith('-')) expected.push(l.slice(1));
    else if (l.startsWith('+')) actual.push(l.slice(1));
    else {
      expected.push(l.slice(1));
      actual.push(l.slice(1));
    }
  }
  return { expected: expected.join('\n'), actual: actual.join('\n') };
}

function text(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v && typeof v === 'object' && '#text' in v) return String((v as XmlNode)['#text']);
  return '';
}

/** The children named `key`: elements with only text come back as strings, empty ones as ''. */
function items(node: XmlNode, key: string): unknown[] {
  const v = node[key];
  return Array.isArray(v) ? v : v === undefined ? [] : [v];
}

function elements(node: XmlNode, key: string): XmlNode[] {
  return items(node, key).map((x) => (x && typeof x === 'object' ? (x as XmlNode) : {}));
}

function attr(v: unknown, name: string): string {
  return v && typeof v === 'object' && `@_${name}` in v ? String((v as XmlNode)[`@_${name}`]) : '';
}

function caseOf(tc: XmlNode): TestCaseResult {
  const cls = String(tc['@_class'] ?? tc['@_classname'] ?? '');
  const bare = String(tc['@_name'] ?? '');
  const name = cls ? `${cls}::${bare}` : bare;
  const errors = items(tc, 'error');
  const failures = items(tc, 'failure');
  const status: TestCaseResult['status'] =
    errors.length > 0 ? 'errored' : failures.length > 0 ? 'failed' : items(tc, 'skipped').length > 0 ? 'skipped' : 'passed';
  const problem = errors.length > 0 ? errors[0] : failures[0];
  if (problem === undefined) return { name, status };
  // PHPUnit repeats the test's id on the first line; the rest is the message.
  const lines = text(problem).replace(/\r\n/g, '\n').split('\n');
  if (lines[0].startsWith(`${cls}::`)) lines.shift();
  const message = lines.join('\n').trim() || attr(problem, 'message') || undefined;
  const pair = message ? (phpunitDiffPair(message) ?? firstPair(message, PHPUNIT_PAIRS)) : undefined;
  return withDetails({ name, status }, message, pair);
}

function collect(node: XmlNode, out: TestCaseResult[]): void {
  for (const tc of elements(node, 'testcase')) out.push(caseOf(tc));
  for (const suite of elements(node, 'testsuite')) collect(suite, out);
  for (const suites of elements(node, 'testsuites')) collect(suites, out);
}

/**
 * JUnit XML as PHPUnit's `--log-junit` writes it (suites nest: one per class, one per data provider)
 * -> TestReport. No file or an unreadable one is a run with no report: ran 0.
 */
export function parseJunitXml(xml: string): TestReport {
  if (!xml.trim() || XMLValidator.validate(xml) !== true) return emptyReport();
  const cases: TestCaseResult[] = [];
  collect(parser.parse(xml) as XmlNode, cases);
  return reportFromCases(cases);
}
