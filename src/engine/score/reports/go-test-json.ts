import type { TestCaseResult, TestReport } from '../types';
import { firstPair, reportFromCases, withDetails } from './report';

/** One line of `go test -json` (cmd/test2json); build events (Go ≥ 1.24) carry ImportPath instead. */
interface GoTestEvent {
  Action?: string;
  Package?: string;
  ImportPath?: string;
  Test?: string;
  Output?: string;
}

interface GoTest {
  pkg: string;
  name: string;
  action?: string;
  output: string[];
}

// test2json's own framing lines; what is left is what the test printed (t.Log, t.Errorf, panics).
const FRAMING = /^\s*(=== (RUN|PAUSE|CONT|NAME)\b|--- (PASS|FAIL|SKIP):)/;

const GO_PAIRS = [
  { re: /\bgot:?\s+(.+?),\s*want:?\s+(.+)$/m, order: 'actual-expected' as const },
  { re: /\bwant:?\s+(.+?),\s*got:?\s+(.+)$/m, order: 'expected-actual' as const },
  { re: /\bexpected:?\s+(.+?),\s*(?:but\s+)?got:?\s+(.+)$/im, order: 'expected-actual' as const },
];

function events(output: string): GoTestEvent[] {
  const out: GoTestEvent[] = [];
  for (const line of output.split('\n')) {
    const t = line.trim();
    if (!t.startsWith('{')) continue; // build errors on stderr (Go < 1.24), stray prints
    try {
      const e: unknown = JSON.parse(t);
      if (e && typeof e === 'object') out.push(e as GoTestEvent);
    } catch {
      // a line cut short by the output cap
    }
  }
  return out;
}

function statusOf(action: string | undefined): TestCaseResult['status'] {
  if (action === 'pass') return 'passed';
  if (action === 'fail') return 'failed';
  if (action === 'skip') return 'skipped';
  return 'errored'; // started, never finished: the binary panicked or was killed (timeout)
}

function messageOf(lines: string[]): string | undefined {
  const kept = lines
    .flatMap((o) => o.replace(/\n$/, '').split('\n'))
    .filter((l) => !FRAMING.test(l))
    .map((l) => l.replace(/^ {4}/, '').trimEnd());
  const text = kept.join('\n').trim();
  return text || undefined;
}

/**
 * `go test -json` -> TestReport. Subtests (`TestX/case`) are cases; a parent with subtests is a case of
 * its own only when it failed while none of its subtests did (a failure in its own body). A package
 * that fails with no failing test in it (build failure, panic in init, TestMain exit) is an error
 * outside the tests.
 */
export function parseGoTestJson(output: string): TestReport {
  const tests = new Map<string, GoTest>();
  const failedPackages: string[] = [];
  for (const e of events(output)) {
    if (!e.Package) continue;
    if (e.Test === undefined) {
      if (e.Action === 'fail') failedPackages.push(e.Package);
      continue;
    }
    const key = `${e.Package}\u0000${e.Test}`;
    let t = tests.get(key);
    if (!t) tests.set(key, (t = { pkg: e.Package, name: e.Test, output: [] }));
    if (e.Action === 'output' && e.Output !== undefined) t.output.push(e.Output);
    else if (e.Action === 'pass' || e.Action === 'fail' || e.Action === 'skip') t.action = e.Action;
  }

  const all = [...tests.values()];
  const descendants = (p: GoTest) => all.filter((t) => t.pkg === p.pkg && t.name.startsWith(`${p.name}/`));
  const cases: TestCaseResult[] = [];
  for (const t of all) {
    const subs = descendants(t);
    if (subs.length > 0 && !(t.action === 'fail' && subs.every((s) => s.action !== 'fail'))) continue;
    const message = messageOf(t.output);
    cases.push(withDetails({ name: t.name, status: statusOf(t.action) }, message, message ? firstPair(message, GO_PAIRS) : undefined));
  }

  const failingPkgs = new Set(all.filter((t) => t.action !== 'pass' && t.action !== 'skip').map((t) => t.pkg));
  const outsideErrors = failedPackages.filter((p) => !failingPkgs.has(p)).length;
  return reportFromCases(cases, outsideErrors);
}

/**
 * `go test -json` as a person reads `go test -v`: the events' Output fields concatenated, grouped per
 * top-level test with its subtests (in the order tests started, so parallel tests do not interleave),
 * with what came before the first test (build output, `go: downloading …`) first and the package's
 * own lines (PASS, coverage, `ok pkg 0.01s`) last. Lines that are not events (stderr, a line cut short
 * by the output cap) stay where they fall. Go's `coverage: N% of statements` is the whole package's,
 * not the focal function's score: the line says so.
 */
export function goTestJsonText(output: string): string {
  const before: string[] = [];
  const perTest = new Map<string, string[]>();
  const after: string[] = [];
  for (const line of output.split('\n')) {
    const t = line.trim();
    let e: GoTestEvent | undefined;
    if (t.startsWith('{')) {
      try {
        const parsed: unknown = JSON.parse(t);
        if (parsed && typeof parsed === 'object') e = parsed as GoTestEvent;
      } catch {
        // not an event after all: shown as it is
      }
    }
    if (!e) {
      if (line !== '') (perTest.size ? after : before).push(`${line}\n`);
      continue;
    }
    if (typeof e.Output !== 'string') continue; // start, run, pass, fail…: their Output lines say it
    if (e.Test !== undefined) {
      // A subtest goes with its top-level test, in the order go test -v prints them.
      const key = `${e.Package ?? ''}\u0000${e.Test.split('/')[0]}`;
      let lines = perTest.get(key);
      if (!lines) perTest.set(key, (lines = []));
      lines.push(e.Output);
    } else if (e.ImportPath !== undefined && !perTest.size) {
      before.push(e.Output); // build output (Go >= 1.24)
    } else {
      (perTest.size ? after : before).push(packageLine(e.Output, e.Package));
    }
  }
  return [...before, ...[...perTest.values()].flat(), ...after].join('');
}

const PACKAGE_COVERAGE = /coverage: [\d.]+% of statements/;

/** A package line with Go's coverage figure (`coverage: …`, `ok pkg 0.01s coverage: …`), said to be the package's. */
function packageLine(text: string, pkg: string | undefined): string {
  const line = text.replace(/\n$/, '');
  if (!PACKAGE_COVERAGE.test(line)) return text;
  return `${line} (go test's figure for the whole package${pkg ? ` ${pkg}` : ''}, not the focal function's coverage in the score)\n`;
}
