import type { FailurePattern, FailurePhase, LanguageFailureRules } from '../../score/failure-rules';

/**
 * rustc diagnostics (by error code) and libtest panic messages (rustc 1.95).
 * Captured examples: test/data/failures/rust/<id>.log.
 */

/** A diagnostic whose header carries the code; the match is the header line. */
function header(codes: string): RegExp {
  return new RegExp(`^error\\[(?:${codes})\\]:[^\\n]*`, 'm');
}

/** rustc codes for the borrow checker, lifetimes and type mismatches (J.1: Type System & Memory). */
const TYPE_SYSTEM_CODES: ReadonlyArray<[code: string, what: string]> = [
  ['E0308', 'mismatched types'],
  ['E0382', 'use of a moved value'],
  ['E0499', 'two mutable borrows'],
  ['E0502', 'mutable and immutable borrow'],
  ['E0505', 'move out while borrowed'],
  ['E0506', 'assignment while borrowed'],
  ['E0597', 'value does not live long enough'],
  ['E0106', 'missing lifetime specifier'],
  ['E0277', 'trait bound not satisfied'],
];

/** Says the unresolved path is a crate the project does not depend on, anywhere in the diagnostic. */
const CRATE_HINT = '(?:unlinked crate|undeclared crate|missing crate|module or crate)';

const API_PATTERNS: FailurePattern[] = [
  {
    // E0432 (`use approx::…`) and E0433 (`approx::f()`) on a crate the project does not have.
    id: 'rust-unresolved-crate',
    phase: 'compile',
    category: 'api-hallucination',
    subcategory: 'phantom-library',
    regex: new RegExp(`^error\\[E043[23]\\]:(?=[^\\n]*(?:\\n(?!error)[^\\n]*)*?${CRATE_HINT})[^\\n]*`, 'm'),
  },
  {
    // A path inside a known crate or module that does not exist (`use crate::triangle::TriangleError`).
    id: 'rust-unresolved-path',
    phase: 'compile',
    category: 'api-hallucination',
    subcategory: 'non-existent-api',
    regex: header('E0432|E0433'),
  },
  {
    // Older rustc says E0412; rustc 1.95 reports an unknown type as E0425 "cannot find type".
    id: 'rust-unknown-type',
    phase: 'compile',
    category: 'api-hallucination',
    subcategory: 'non-existent-api',
    regex: /^error\[E0412\]:[^\n]*|^error\[E0425\]: cannot find type [^\n]*/m,
  },
  { id: 'rust-E0425', phase: 'compile', category: 'api-hallucination', subcategory: 'non-existent-api', regex: header('E0425') },
  { id: 'rust-E0599', phase: 'compile', category: 'api-hallucination', subcategory: 'non-existent-api', regex: header('E0599') },
  { id: 'rust-E0560', phase: 'compile', category: 'api-hallucination', subcategory: 'non-existent-api', regex: header('E0560') },
  { id: 'rust-E0609', phase: 'compile', category: 'api-hallucination', subcategory: 'non-existent-api', regex: header('E0609') },
  { id: 'rust-E0061', phase: 'compile', category: 'api-hallucination', subcategory: 'signature-mismatch', regex: header('E0061') },
];

const TYPE_PATTERNS: FailurePattern[] = TYPE_SYSTEM_CODES.map(([code]) => ({
  id: `rust-${code}`,
  phase: 'compile',
  category: 'type-system-memory',
  regex: header(code),
}));

const SYNTAX_PATTERNS: FailurePattern[] = [
  {
    // Parser errors carry no code.
    id: 'rust-syntax-error',
    phase: 'compile',
    category: 'syntactic-compilation',
    regex: /^error: (?:expected|mismatched closing delimiter|unexpected closing delimiter|this file contains an unclosed delimiter|unterminated)[^\n]*/m,
  },
];

const RUNTIME_PATTERNS: FailurePattern[] = [
  {
    id: 'rust-arithmetic-overflow',
    phase: 'runtime',
    category: 'type-system-memory',
    regex: /attempt to (?:add|subtract|multiply|negate|divide|calculate the remainder|shift left|shift right) with overflow/,
  },
  {
    id: 'rust-index-out-of-bounds',
    phase: 'runtime',
    category: 'type-system-memory',
    regex: /index out of bounds: the len is \d+ but the index is \d+|range (?:start|end) index \d+ out of range for slice|byte index \d+ is out of bounds/,
  },
  {
    // The whole test binary aborts (SIGABRT): no "test result" line follows for it.
    id: 'rust-stack-overflow',
    phase: 'runtime',
    category: 'type-system-memory',
    regex: /has overflowed its stack|fatal runtime error: stack overflow/,
  },
  {
    // `assert_eq!` prints "assertion `left == right` failed", `assert!` prints "assertion failed: <expr>".
    id: 'rust-assertion-failed',
    phase: 'runtime',
    category: 'logic-assertion',
    regex: /assertion (?:`[^`\n]*` )?failed/,
  },
  {
    id: 'rust-unwrap-panic',
    phase: 'runtime',
    category: 'logic-assertion',
    regex: /called `(?:Option|Result)::unwrap(?:_err)?\(\)` on an? `(?:None|Err|Ok)` value/,
  },
];

export const rustFailureRules: LanguageFailureRules = {
  // The compile phase type-checks and resolves names (J.2): its API and type errors are tried first.
  typeCheckedCompile: true,
  patterns: [...API_PATTERNS, ...TYPE_PATTERNS, ...SYNTAX_PATTERNS, ...RUNTIME_PATTERNS],
  readableLog: rustReadableLog,
};

/**
 * `cargo --message-format=json` puts each diagnostic, as rustc would print it, in
 * `message.rendered`; the same object also carries the code's long explanation, whose examples
 * quote other errors. Keeps the rendered diagnostics and cargo's own plain lines, drops the rest.
 */
function rustReadableLog(_phase: FailurePhase, output: string): string {
  const out: string[] = [];
  for (const line of output.split('\n')) {
    if (!line.startsWith('{')) {
      out.push(`${line}\n`);
      continue;
    }
    const rendered = renderedDiagnostic(line);
    if (rendered !== null) out.push(rendered);
  }
  return out.join('');
}

function renderedDiagnostic(line: string): string | null {
  try {
    const msg = JSON.parse(line) as { reason?: unknown; message?: { rendered?: unknown } };
    return msg.reason === 'compiler-message' && typeof msg.message?.rendered === 'string' ? msg.message.rendered : null;
  } catch {
    return `${line}\n`; // not JSON after all: keep it as text
  }
}
