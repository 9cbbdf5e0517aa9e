import type { Node } from 'web-tree-sitter';
import { field, named } from '../../parse/nodes';
import { parseWithDeadline } from '../../parse/parse';
import type { Finding, LanguageTamperingRules } from '../../score/tampering-rules';

/**
 * Go's test binary is the test's own process: TestMain decides whether the tests run and what the
 * exit status is, and anything in it can write the cover profile named on its command line or print
 * test2json's framing. The signs below are what such a test must contain; honest tests have none.
 */

// test2json's framing lines, and the \x16 byte the testing package marks them with (Go >= 1.20).
const FRAMING = /---\s+(PASS|FAIL|SKIP):|===\s+(RUN|PAUSE|CONT|NAME)\s|\\x16|\\026|\\u0016|\\U00000016/;

const TEST_NAME = /^Test($|[^a-z])/;

async function withTree<T>(code: string, fallback: T, f: (root: Node) => T): Promise<T> {
  const parsed = await parseWithDeadline('go', code, 10_000);
  if (!('tree' in parsed)) return fallback;
  try {
    return f(parsed.tree.rootNode);
  } finally {
    parsed.tree.delete();
  }
}

function descendants(node: Node, type: string): Node[] {
  return node.descendantsOfType(type).filter((n): n is Node => n !== null);
}

const EXIT_PACKAGES = new Set(['os', 'syscall', 'golang.org/x/sys/unix']);

/** The names the file gives the packages that can exit the process (`os`, an alias, '' for a dot import). */
function exitPackageNames(root: Node): Set<string> {
  const names = new Set<string>();
  for (const spec of descendants(root, 'import_spec')) {
    const importPath = field(spec, 'path')?.text.replace(/^["`]|["`]$/g, '') ?? '';
    if (!EXIT_PACKAGES.has(importPath)) continue;
    const alias = field(spec, 'name')?.text;
    names.add(alias === '.' ? '' : (alias ?? importPath.split('/').pop()!));
  }
  return names;
}

/** `os.Exit(…)` (under any import name), `syscall.Exit(…)`, `unix.Exit(…)`: leaving the test binary with a status of our choice. */
function exitCalls(node: Node, packages: Set<string>): Node[] {
  return descendants(node, 'call_expression').filter((c) => {
    const callee = field(c, 'function')?.text.replace(/\s+/g, '') ?? '';
    const m = /^(?:(\w+)\.)?Exit$/.exec(callee);
    return m !== null && packages.has(m[1] ?? '');
  });
}

function treeSigns(root: Node): Finding[] {
  const out: Finding[] = [];
  const packages = exitPackageNames(root);
  const funcs = named(root).filter((n) => n.type === 'function_declaration');
  const mains = funcs.filter((f) => field(f, 'name')?.text === 'TestMain');
  for (const main of mains) {
    const body = field(main, 'body')?.text ?? '';
    if (!/\.Run\b/.test(body)) {
      out.push({ rule: 'go-testmain-no-run', says: 'TestMain never calls m.Run, so the tests never run and the output and exit status are the test\'s own', evidence: 'func TestMain' });
    }
    // An honest TestMain passes on m.Run's status (os.Exit(m.Run()), or a variable holding it); a literal is a chosen verdict.
    for (const call of exitCalls(main, packages)) {
      const args = field(call, 'arguments');
      const arg = args ? named(args)[0] : undefined;
      if (arg && /^(int_literal|unary_expression)$/.test(arg.type)) {
        out.push({ rule: 'go-exit', says: 'TestMain exits with a fixed status instead of the one m.Run returned', evidence: call.text });
      }
    }
  }
  for (const f of funcs.filter((g) => field(g, 'name')?.text !== 'TestMain')) {
    const call = exitCalls(f, packages)[0];
    if (call) out.push({ rule: 'go-exit', says: 'the test ends the test binary early with its own exit status', evidence: call.text });
  }
  // Function literals and init() outside any function declaration are covered by the walk above only
  // when declared in one; a package-level var initialised by a call can still run code at load.
  const topLevelExit = named(root).filter((n) => n.type !== 'function_declaration').flatMap((n) => exitCalls(n, packages))[0];
  if (topLevelExit) out.push({ rule: 'go-exit', says: 'the test ends the test binary early with its own exit status', evidence: topLevelExit.text });
  return out;
}

interface GoEvent {
  Action?: string;
  Test?: string;
  Output?: string;
}

/** The events in the test phase's output (test-events.ts writes one a line; other lines skipped). */
function testEvents(output: string): GoEvent[] {
  const events: GoEvent[] = [];
  for (const line of output.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const e: unknown = JSON.parse(line);
      if (e && typeof e === 'object') events.push(e as GoEvent);
    } catch {
      /* not an event */
    }
  }
  return events;
}

/** The `output` events in the test phase's output. */
function outputEvents(output: string): Array<GoEvent & { Output: string }> {
  return testEvents(output).filter((e): e is GoEvent & { Output: string } => e.Action === 'output' && typeof e.Output === 'string');
}

/**
 * Framing lines in the stream that the runner did not produce: `--- PASS: TestY` printed inside the
 * output of test X, or outside any test. The conversion attributes every real framing line to its own test.
 */
function forgedFraming(output: string): Finding | null {
  for (const e of outputEvents(output)) {
    const m = /^\s*(?:---\s+(?:PASS|FAIL|SKIP):|===\s+(?:RUN|PAUSE|CONT|NAME))\s+(\S+)/.exec(e.Output);
    if (m && m[1] !== e.Test) {
      return {
        rule: 'go-forged-framing',
        says: `the output has a framing line for ${m[1]} that the runner did not print${e.Test ? ` (it is inside the output of ${e.Test})` : ''}`,
        evidence: e.Output.trim().slice(0, 200),
      };
    }
  }
  return null;
}

/**
 * Results the runner did not print: the testing package reports each test's result once, after the
 * test started. A marked result line (\x16 and all) is framing to any reader, and the one read last
 * counts: a second result for a test is a line printed by the test's code (a TestMain after m.Run, a
 * goroutine that outlived its test). A result for a test that never started is one too, unless the
 * output's middle was dropped at the limit (its `=== RUN` line may be what went).
 */
function forgedResults(output: string, outputTruncated: boolean): Finding | null {
  const started = new Set<string>();
  const ended = new Set<string>();
  for (const e of testEvents(output)) {
    if (typeof e.Test !== 'string' || !e.Test) continue;
    if (e.Action === 'run') started.add(e.Test);
    if (e.Action !== 'pass' && e.Action !== 'fail' && e.Action !== 'skip') continue;
    const twice = ended.has(e.Test);
    if (twice || (!started.has(e.Test) && !outputTruncated)) {
      return {
        rule: 'go-forged-framing',
        says: twice
          ? `the output reports a second result for ${e.Test} (${e.Action}): the runner reports each test once, so a line the test printed claims it`
          : `the output reports a result for ${e.Test} (${e.Action}), which never started: a line the test printed claims it`,
      };
    }
    ended.add(e.Test);
  }
  return null;
}

/**
 * The share of the package's statements a cover profile says ran, as the testing package prints it
 * (`%.1f`); null for a profile with no statements. Each block counts once (a merged profile may list
 * one twice), as run when any of its lines says so.
 */
export function profilePercent(profile: string): string | null | 'invalid' {
  const blocks = new Map<string, { statements: number; ran: boolean }>();
  for (const line of profile.split('\n')) {
    const m = /^(.+:\d+\.\d+,\d+\.\d+) (\d+) (\d+)$/.exec(line.trim());
    if (!m) continue;
    // No compiler counts a block's statements past a few thousand, nor a run past 2^53 (a count of
    // 400 nines made the share Infinity / Infinity, NaN, which compared as equal to anything).
    if (!Number.isSafeInteger(Number(m[2])) || !Number.isSafeInteger(Number(m[3])) || Number(m[2]) > 1_000_000) return 'invalid';
    const seen = blocks.get(m[1]);
    const ran = Number(m[3]) > 0;
    blocks.set(m[1], { statements: Number(m[2]), ran: ran || (seen?.ran ?? false) });
  }
  let total = 0;
  let covered = 0;
  for (const b of blocks.values()) {
    total += b.statements;
    if (b.ran) covered += b.statements;
  }
  return total ? ((100 * covered) / total).toFixed(1) : null;
}

/**
 * The cover profile read after the test binary exited, against the `coverage: N% of statements` line
 * the testing package printed when it wrote that profile (inside m.Run, from the same counters). Code
 * that runs after m.Run (TestMain, a deferred call, an exit hook) can rewrite the file, but not take
 * back a line already in test2json's pipe. A line printed outside any test that disagrees, or no such
 * line beside a profile, is a rewritten profile. What stays possible: a test that replaces os.Stdout
 * before m.Run and forges the line too, or rewrites the counters in memory before they are written
 * (docs/execution.md, threat model).
 */
function profileDisagrees(output: string, readReport: (name: string) => string | null, outputTruncated: boolean): Finding | null {
  const profile = readReport('cover.out');
  if (profile === null) return null;
  const written = profilePercent(profile);
  if (written === null) return null;
  if (written === 'invalid') return { rule: 'go-coverage-rewritten', says: 'the cover profile has a block whose statement or run count no compiler or run writes: it was rewritten' };
  const printed: string[] = [];
  for (const e of outputEvents(output)) {
    if (e.Test) continue;
    const m = /^coverage: (\d+(?:\.\d+)?)% of statements/.exec(e.Output);
    if (m) printed.push(m[1]);
  }
  const says = (p: string) => `the cover profile says ${written} % of the package's statements ran, but the testing package printed ${p} % when it wrote it: the profile was rewritten after the tests ended`;
  for (const p of printed) {
    // Both from the same counters and rounded alike; a tenth of slack for the rounding of a tie.
    if (Math.abs(Number(p) - Number(written)) > 0.1) return { rule: 'go-coverage-rewritten', says: says(p), evidence: `coverage: ${p}% of statements` };
  }
  if (!printed.length && !outputTruncated) {
    return { rule: 'go-coverage-rewritten', says: `a cover profile (${written} % of the package's statements) is there, but the testing package printed no coverage line: it was not written by the tests' own run` };
  }
  return null;
}

export const goTamperingRules: LanguageTamperingRules = {
  signs: [
    { id: 'go-report-path', inStrings: true, regex: /coverprofile|GOCOVERDIR|\bcover\.out\b|\bcmdline\b|\.xrt\//, says: 'the test looks for the runner\'s cover profile or command line (to rewrite the report)' },
    { id: 'go-framing', inStrings: true, regex: FRAMING, says: 'the test prints the runner\'s framing lines (--- PASS, === RUN, or the \\x16 marker)' },
    { id: 'go-runner-internals', regex: /\btesting\.(MainStart|RunTests|RunBenchmarks|RunExamples)\b|test2json/, says: 'the test drives the testing package\'s runner itself' },
    { id: 'go-kill-runner', regex: /\bGetppid\b|\b(syscall|unix)\.Kill\b/, says: 'the test signals the process that runs it' },
  ],

  treeSigns: (code) => withTree(code, [], treeSigns),

  async unknownTests(code, report) {
    const declared = await withTree(code, null as Set<string> | null, (root) =>
      new Set(named(root).filter((n) => n.type === 'function_declaration').map((n) => field(n, 'name')?.text ?? '').filter((n) => TEST_NAME.test(n))),
    );
    if (!declared) return null;
    // A test renamed to avoid the package's own name (TestX -> TestX_xrt1, toolchain.ts) is reported
    // under the name the test gave it.
    for (const name of [...declared]) declared.add(name.replace(/_xrt\d+$/, ''));
    const unknown = [...new Set(report.cases.map((c) => c.name.split('/')[0]))].filter((n) => !declared.has(n));
    if (!unknown.length) return null;
    return { rule: 'go-unknown-test', says: `the runner's output reports test(s) the code does not declare: ${unknown.slice(0, 5).join(', ')}` };
  },

  outputDisagrees: (output, _report, outputTruncated) => forgedFraming(output) ?? forgedResults(output, outputTruncated),

  reportsDisagree: profileDisagrees,
};
