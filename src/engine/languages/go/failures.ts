import type { FailurePhase, LanguageFailureRules } from '../../score/failure-rules';

/**
 * Go compiler and runtime messages (go 1.26), as `go test -c` and `go test -json` print them.
 * Captured examples: test/data/failures/go/<id>.log.
 */
export const goFailureRules: LanguageFailureRules = {
  // The compile phase type-checks and resolves names (J.2): its API and type errors are tried first.
  typeCheckedCompile: true,
  patterns: [
    // --- compile: API hallucination
    {
      // `-mod=mod` with GOPROXY=off says "cannot find module providing package"; without -mod=mod it is
      // "no required module provides package"; go vet and gopls say "could not import".
      id: 'go-missing-module',
      phase: 'compile',
      category: 'api-hallucination',
      subcategory: 'phantom-library',
      regex: /(?:no required module provides package|cannot find module providing package|could not import) \S+/,
    },
    {
      id: 'go-not-in-std',
      phase: 'compile',
      category: 'api-hallucination',
      subcategory: 'phantom-library',
      regex: /package \S+ is not in std\b/,
    },
    {
      id: 'go-no-field-or-method',
      phase: 'compile',
      category: 'api-hallucination',
      subcategory: 'non-existent-api',
      regex: /\S+ undefined \(type [^\n]+ has no field or method \w+/,
    },
    {
      // Also `undefined: strings.Foo`: a made-up function in a real package.
      id: 'go-undefined',
      phase: 'compile',
      category: 'api-hallucination',
      subcategory: 'non-existent-api',
      regex: /: undefined: \S+/,
    },
    {
      id: 'go-argument-count',
      phase: 'compile',
      category: 'api-hallucination',
      subcategory: 'signature-mismatch',
      regex: /(?:not enough|too many) arguments in call to \S+/,
    },
    {
      // The test assumed a different number of results: the function's signature, not a type error.
      id: 'go-assignment-mismatch',
      phase: 'compile',
      category: 'api-hallucination',
      subcategory: 'signature-mismatch',
      regex: /assignment mismatch: \d+ variables? but [^\n]* returns? \d+ values?/,
    },
    // --- compile: type system
    {
      id: 'go-cannot-use',
      phase: 'compile',
      category: 'type-system-memory',
      regex: /cannot use [^\n]+ as [^\n]+ value/,
    },
    {
      id: 'go-mismatched-types',
      phase: 'compile',
      category: 'type-system-memory',
      regex: /invalid operation: [^\n]*\(mismatched types [^\n]+\)/,
    },
    {
      // go 1.26 reports some invalid operations without the prefix ("cannot index x (variable of type int)").
      id: 'go-invalid-operation',
      phase: 'compile',
      category: 'type-system-memory',
      regex: /invalid operation: [^\n]*|cannot index \S+ \([^\n]*/,
    },
    // --- compile: syntax (anything else falls back to syntactic as well)
    {
      // The compiler says "syntax error: …"; when the go command's own parser fails first (while it
      // reads imports) it says "expected '}', found 'EOF'" and the package is "[setup failed]".
      id: 'go-syntax-error',
      phase: 'compile',
      category: 'syntactic-compilation',
      regex: /syntax error: [^\n]*|: expected [^\n]+, found [^\n]*/,
    },
    // --- runtime: type system & memory (panics); the specific ones first, they share a line with "runtime error"
    {
      id: 'go-interface-conversion',
      phase: 'runtime',
      category: 'type-system-memory',
      regex: /panic: interface conversion: /,
    },
    {
      id: 'go-nil-pointer',
      phase: 'runtime',
      category: 'type-system-memory',
      regex: /invalid memory address or nil pointer dereference/,
    },
    {
      id: 'go-index-out-of-range',
      phase: 'runtime',
      category: 'type-system-memory',
      regex: /runtime error: (?:index out of range|slice bounds out of range)/,
    },
    {
      id: 'go-runtime-error',
      phase: 'runtime',
      category: 'type-system-memory',
      regex: /runtime error: /,
    },
  ],
  readableLog: goReadableLog,
};

/**
 * `go test -json` wraps every line the test binary prints in an event's `Output` string (tabs and
 * quotes escaped); build errors still arrive as plain text. Returns the text as `go test` without
 * -json would have printed it.
 */
function goReadableLog(_phase: FailurePhase, output: string): string {
  const out: string[] = [];
  for (const line of output.split('\n')) {
    const event = parseJsonObject(line);
    if (!event) out.push(`${line}\n`);
    else if (typeof event.Output === 'string') out.push(event.Output);
  }
  return out.join('');
}

function parseJsonObject(line: string): Record<string, unknown> | null {
  if (!line.startsWith('{')) return null;
  try {
    const v: unknown = JSON.parse(line);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
