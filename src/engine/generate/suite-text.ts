/**
 * Merging tests by concatenation, for languages whose test files are sequences of independent blocks
 * (Ruby's example groups, Julia's test sets): each test after the other, a line matching `once`
 * (a `require`, a `using`) kept only the first time it appears.
 */
export function mergeByConcatenation(tests: readonly string[], once: RegExp): string {
  if (tests.length <= 1) return tests[0] ?? '';
  const seen = new Set<string>();
  const out: string[] = [];
  for (const code of tests) {
    const lines = code.replace(/\s+$/, '').split('\n').filter((line) => {
      if (!once.test(line)) return true;
      const key = line.trim();
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    out.push(lines.join('\n').replace(/^\n+/, ''));
  }
  return out.join('\n\n') + '\n';
}
