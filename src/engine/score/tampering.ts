import * as path from 'node:path';
import { adapterFor } from '../languages';
import type { LanguageId } from '../languages/types';
import { parseWithDeadline } from '../parse/parse';
import { readSandboxFile, SandboxFileError } from '../execute/safe-fs';
import type { PhaseResult } from '../execute/types';
import type { Finding, LanguageTamperingRules, TamperingSign } from './tampering-rules';
import type { FailureCategory, FocalCoverage, TestReport } from './types';

export type { Finding, LanguageTamperingRules, TamperingSign };

/**
 * Detecting a test that forges its own score (METRICS.md, "tampering"; docs/execution.md).
 *
 * Where the runner reports from inside the test's own process (PHPUnit, RSpec, libtest, `go test`'s
 * binary) the test can rewrite the report, print the runner's lines, or exit before the failure is
 * written, and nothing outside the process can prevent it. What can be done is to notice: the
 * known tricks leave signs in the test's code, and a forged verdict disagrees with the runner's
 * exit status, its own printed summary, or the tests the code declares.
 */

/** The language's tampering rules, from its adapter (languages/<id>/tampering.ts). */
export function tamperingRulesFor(language: LanguageId): LanguageTamperingRules {
  return adapterFor(language).tampering;
}

/** Comment node types, per grammar: their text is blanked so a comment never counts as a sign. */
const COMMENT_TYPES = /comment/;
/** String literal node types, per grammar; one holding an interpolation is descended into instead. */
const STRING_TYPES = /string|heredoc|nowdoc|char_literal/;
const INTERPOLATION_TYPES = ['interpolation', 'template_substitution', 'string_interpolation'];

/** The test as the signs read it: `text` without comments, `code` also without string literals. */
export interface CodeViews {
  text: string;
  code: string;
}

/** Comments (and, for `code`, string literals) replaced by spaces, line breaks kept, so offsets and lines stay. */
export async function codeViews(language: LanguageId, source: string): Promise<CodeViews> {
  const parsed = await parseWithDeadline(language, source, 10_000);
  if (!('tree' in parsed)) return { text: source, code: source };
  const comments: Array<[number, number]> = [];
  const strings: Array<[number, number]> = [];
  const cursor = parsed.tree.rootNode.walk();
  try {
    let more = true;
    while (more) {
      const type = cursor.nodeType;
      let descend = true;
      if (COMMENT_TYPES.test(type)) {
        comments.push([cursor.startIndex, cursor.endIndex]);
        descend = false;
      } else if (STRING_TYPES.test(type) && !cursor.currentNode.descendantsOfType(INTERPOLATION_TYPES).length) {
        strings.push([cursor.startIndex, cursor.endIndex]);
        descend = false;
      }
      if (descend && cursor.gotoFirstChild()) continue;
      while (!cursor.gotoNextSibling()) {
        if (!cursor.gotoParent()) {
          more = false;
          break;
        }
      }
    }
  } finally {
    cursor.delete();
    parsed.tree.delete();
  }
  return { text: blank(source, comments), code: blank(source, [...comments, ...strings].sort((a, b) => a[0] - b[0])) };
}

// web-tree-sitter's indices are UTF-16 units, the same as JavaScript string indices.
function blank(source: string, ranges: Array<[number, number]>): string {
  let out = '';
  let at = 0;
  for (const [from, to] of ranges) {
    if (from < at) continue;
    out += source.slice(at, from) + source.slice(from, to).replace(/[^\n]/g, ' ');
    at = to;
  }
  return out + source.slice(at);
}

export function signsIn(views: CodeViews, signs: readonly TamperingSign[]): Finding[] {
  const out: Finding[] = [];
  for (const sign of signs) {
    const code = sign.inStrings ? views.text : views.code;
    const m = sign.regex.exec(code);
    if (m) out.push({ rule: sign.id, says: sign.says, evidence: lineAt(views.text, m.index) });
  }
  return out;
}

/** The whole line at `offset`, whitespace collapsed and cut to a readable length. */
export function lineAt(text: string, offset: number): string {
  const from = text.lastIndexOf('\n', offset - 1) + 1;
  const nl = text.indexOf('\n', offset);
  const line = text.slice(from, nl === -1 ? text.length : nl).replace(/\s+/g, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

export interface TamperingInput {
  language: LanguageId;
  /** The test as placed in the copy (what ran). */
  testCode: string;
  /** The test phase ran (it compiled); no test phase, nothing to check. */
  testRan: boolean;
  testExitCode: number | null;
  testOutput: string;
  testOutputTruncated: boolean;
  report: TestReport;
  coverage: FocalCoverage;
  /** The focal file after the test phase, or why it could not be read as a regular file. */
  focalAfter: { text: string } | { problem: string } | null;
  /** What the focal file must hold: the task's file_content (plus a Rust test module placed in it). */
  focalExpected: string;
  /** The sandbox and its focal file, where a language looks up what the test inherits (PHP's parent test classes). */
  sandbox?: { dir: string; focalFile: string };
  /** A report file the runner wrote in the slot's report folder, read safely; null when absent or not a plain file. */
  readReport?: (name: string) => string | null;
  /** What the test phase's sealed channel received (the line tracer's report); absent: it ran untraced. */
  testSealed?: string;
  testTimedOut?: boolean;
}

/** Every sign of tampering in one test run; empty when none. */
export async function detectTampering(input: TamperingInput): Promise<Finding[]> {
  if (!input.testRan) return [];
  const rules = tamperingRulesFor(input.language);
  // Most telling first (the reason leads with it): the focal code changed, then what the run itself
  // contradicts (it proves the forgery happened), then the tricks seen in the code.
  const found: Finding[] = [];
  if (input.focalAfter) {
    if ('problem' in input.focalAfter) found.push({ rule: 'focal-replaced', says: `the focal file was ${input.focalAfter.problem}` });
    else if (input.focalAfter.text !== input.focalExpected) {
      found.push({ rule: 'focal-edited', says: 'the focal file changed in the copy during the test (it would be scored against code that is not the task\'s)' });
    }
  }
  const r = input.report;
  if (input.testExitCode === 0 && r.failed + r.errored > 0) {
    found.push({
      rule: 'exit-status',
      says: `the runner exited with status 0 although its report has ${r.failed + r.errored} failing test(s): the test chose the exit status itself`,
    });
  }
  const disagrees = rules.outputDisagrees?.(input.testOutput, r, input.testOutputTruncated);
  if (disagrees) found.push(disagrees);
  const rewritten = input.readReport ? rules.reportsDisagree?.(input.testOutput, input.readReport, input.testOutputTruncated) : null;
  if (rewritten) found.push(rewritten);
  // A phase ended at its limit killed the tracer before it could report: that slot fails anyway.
  const untraced = input.testSealed !== undefined && !input.testTimedOut ? rules.tracedCoverage?.(input.testSealed, input.coverage.covered) : null;
  if (untraced) found.push(untraced);
  const unknown = await rules.unknownTests?.(input.testCode, r, input.sandbox);
  if (unknown) found.push(unknown);
  const { executable, covered } = input.coverage;
  if (r.ran === 0 && executable.length > 1 && covered.length === executable.length) {
    found.push({ rule: 'coverage-without-tests', says: 'the coverage report has every focal line run although no test ran (a forged coverage file)' });
  }
  if (rules.treeSigns) found.push(...(await rules.treeSigns(input.testCode)));
  found.push(...signsIn(await codeViews(input.language, input.testCode), rules.signs));
  return found;
}

const MAX_FOCAL_BYTES = 16 * 1024 * 1024;

/**
 * The focal file in the sandbox after untrusted code ran, read without following links on any path
 * component below `root`, as a regular file only, non-blocking and size-capped: a test may have
 * swapped it (or a folder above it) for a link or a FIFO. Returns why it is not a plain file instead.
 */
export function readFocalAfterTest(root: string, file: string): { text: string } | { problem: string } {
  const rel = path.relative(root, file);
  if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) return { problem: 'outside the copy' };
  try {
    const text = readSandboxFile(root, rel.split(path.sep).join('/'), MAX_FOCAL_BYTES);
    return text === null ? { problem: 'removed' } : { text };
  } catch (e) {
    if (e instanceof SandboxFileError) return { problem: `replaced: ${e.message}` };
    return { problem: `unreadable (${(e as NodeJS.ErrnoException).code ?? String(e)})` };
  }
}

/** The failure a detected attempt gets: the slot fails, with no coverage, whatever it reported. */
export function tamperingVerdict(findings: readonly Finding[]): { category: FailureCategory; rule: string; evidence?: string; reason: string } | null {
  if (!findings.length) return null;
  const [first, ...others] = findings;
  // Short enough for a result row (the annotator shows 300 characters): the first finding in words,
  // the others by rule id (each is in the evidence of a rerun, and in docs/execution.md).
  const evidence = first.evidence ? ` (\`${first.evidence.length > 100 ? `${first.evidence.slice(0, 99)}…` : first.evidence}\`)` : '';
  const also = [...new Set(others.map((f) => f.rule))].filter((id) => id !== first.rule);
  return {
    category: 'tampering',
    rule: first.rule,
    evidence: first.evidence,
    reason: `the test tampered with the harness: ${first.says}${evidence}${also.length ? `; also ${also.join(', ')}` : ''}`,
  };
}

/** A score with a detected attempt applied: failed, no coverage, category 'tampering'. */
export function applyTampering<S extends {
  passed: boolean;
  coverage: FocalCoverage;
  coverageRatio: number;
  failure: { category: FailureCategory; rule: string; evidence?: string; subcategory?: string } | null;
  reason: string | null;
}>(score: S, findings: readonly Finding[]): S {
  const verdict = tamperingVerdict(findings);
  if (!verdict) return score;
  const failure: S['failure'] = { category: verdict.category, rule: verdict.rule };
  if (verdict.evidence && failure) failure.evidence = verdict.evidence;
  return { ...score, passed: false, coverage: { executable: score.coverage.executable, covered: [] }, coverageRatio: 0, failure, reason: verdict.reason };
}

/** What the engine hands over after the test phase, for `checkTampering`. */
export interface TestRun {
  language: LanguageId;
  /** The test as placed in the copy (Placement.writtenCode). */
  writtenCode: string;
  test: PhaseResult | undefined;
  report: TestReport;
  /** The sandbox folder, and the focal file in it (absolute). */
  sandboxDir: string;
  focalFile: string;
  /** The task's file_content, plus what placement appended to the focal file (Rust's test module). */
  focalExpected: string;
  /** A report file of the slot, read safely (execute/toolchain.ts `readReport`). */
  readReport?: (name: string) => string | null;
}

/** The score after the tampering checks: unchanged for an honest run, a 'tampering' failure otherwise. */
export async function checkTampering<S extends Parameters<typeof applyTampering>[0]>(score: S, run: TestRun): Promise<S> {
  const findings = await detectTampering({
    language: run.language,
    testCode: run.writtenCode,
    testRan: run.test !== undefined,
    testExitCode: run.test?.exitCode ?? null,
    testOutput: run.test?.output ?? '',
    testOutputTruncated: run.test?.outputTruncated ?? false,
    report: run.report,
    coverage: score.coverage,
    focalAfter: readFocalAfterTest(run.sandboxDir, run.focalFile),
    focalExpected: run.focalExpected,
    sandbox: { dir: run.sandboxDir, focalFile: run.focalFile },
    readReport: run.readReport,
    testSealed: run.test?.sealed,
    testTimedOut: run.test?.timedOut,
  });
  return applyTampering(score, findings);
}
