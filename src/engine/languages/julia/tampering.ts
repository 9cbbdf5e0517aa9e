import type { LanguageTamperingRules } from '../../score/tampering-rules';

/**
 * Julia's counts come from a line our runner prints at the end of the test process: a test that
 * prints that line itself, or exits before the runner does, forges them.
 */
export const juliaTamperingRules: LanguageTamperingRules = {
  signs: [
    { id: 'julia-exit', regex: /(?<![\w.])(exit|Base\s*\.\s*exit)\s*\(|ccall\s*\(\s*:(_?exit|abort|kill)\b/, says: 'the test ends Julia early (exit / ccall), choosing the exit status' },
    { id: 'julia-atexit', regex: /\batexit\s*\(/, says: 'the test registers code to run after the tests (atexit)' },
    { id: 'julia-framing', inStrings: true, regex: /XRT_COUNTS|Test Summary:/, says: 'the test prints the runner\'s count or summary lines' },
    { id: 'julia-report-path', inStrings: true, regex: /\.cov\b|\bcmdline\b|\.xrt\/|--code-coverage/, says: 'the test looks for the coverage files or the runner\'s command line (to rewrite them)' },
  ],
};
