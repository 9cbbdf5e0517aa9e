import { scopeOf, systemPrompt, type LanguagePrompt } from '../../prompt/language-prompt';

/** `restock` -> `Restock`: Go runs only test functions named `Test` + an upper-case letter. */
function goTestName(functionName: string): string {
  return `Test${functionName.charAt(0).toUpperCase()}${functionName.slice(1)}`;
}

/** Go's prompt (the paper's Appendix K template), the adapter's `prompt`. */
export const goPrompt: LanguagePrompt = {
  fence: 'go',
  fenceTags: new Set(['go', 'golang']),
  wrapsMethodInClass: false,
  system: systemPrompt(
    'Go',
    [
      'Write the tests as a `_test.go` file in the same package as the code under test, importing the standard `testing` package',
      'Name each test function `TestXxx(t *testing.T)`',
      'Prefer table-driven tests: a slice of named cases run as subtests with `t.Run`',
      'Report a wrong result with `t.Errorf`, showing the input, the result and the expected value',
    ],
    'go',
    [
      'package mathutil',
      '',
      'import "testing"',
      '',
      'func TestDivide(t *testing.T) {',
      '\ttests := []struct {',
      '\t\tname    string',
      '\t\ta, b    int',
      '\t\twant    int',
      '\t\twantErr bool',
      '\t}{',
      '\t\t{"evenly", 10, 2, 5, false},',
      '\t\t{"negative", -9, 3, -3, false},',
      '\t\t{"by zero", 1, 0, 0, true},',
      '\t}',
      '\tfor _, tt := range tests {',
      '\t\tt.Run(tt.name, func(t *testing.T) {',
      '\t\t\tgot, err := Divide(tt.a, tt.b)',
      '\t\t\tif (err != nil) != tt.wantErr {',
      '\t\t\t\tt.Fatalf("Divide(%d, %d) error = %v, wantErr %v", tt.a, tt.b, err, tt.wantErr)',
      '\t\t\t}',
      '\t\t\tif got != tt.want {',
      '\t\t\t\tt.Errorf("Divide(%d, %d) = %d, want %d", tt.a, tt.b, got, tt.want)',
      '\t\t\t}',
      '\t\t})',
      '\t}',
      '}',
    ].join('\n'),
  ),
  requirements: (task) => [
    `Package name: ${scopeOf(task, 'package')}`,
    `Test function name: \`func ${goTestName(task.function_name)}(t *testing.T)\``,
    'Use `t.Fatalf` when a failure makes the rest of the test meaningless (an unexpected error, a nil result)',
    'When the function returns an error, check both whether an error is returned and what its message says',
  ],
};
