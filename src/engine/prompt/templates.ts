import { contextModeSpec, type ContextMode, type GatheredContext } from '../context/modes';
import type { Prompt } from '../generate/types';
import type { LanguageId } from '../parse/grammars';
import type { TaskRecord } from '../tasks/record';
import { renderFileBlock, renderLspBlock, renderRetrievalBlock, type RetrievalBlockOptions } from './blocks';
import { focalCodeForPrompt } from './focal-code';

export { renderFileBlock, renderLspBlock, renderRetrievalBlock, type RetrievalBlockOptions };
export { MissingContextError } from '../context/modes';

/**
 * The paper's prompts (Appendix K; the release's template.py, paraphrased in
 * notes/xrepotest-release.md §6): per language a system prompt — the expert persona, the test
 * framework's conventions, "Cover normal cases, edge cases, and error cases", the fence instruction,
 * a small example, the closing line — and a user prompt — the header, the fenced focal code, and
 * "Additional requirements:" with the language's bullets.
 */
export interface LanguageTemplate {
  displayName: string;
  /** The fence's language identifier, in the example and around the focal code. */
  fence: string;
  system: string;
  /** The "Additional requirements:" bullets for one task (without the leading "- "). */
  requirements(task: TaskRecord, context?: PromptContext): string[];
}

/**
 * Where a generated PHP test is told to load Composer's autoloader from. The release's system prompt
 * says `__DIR__ . '/../../vendor/autoload.php'` while its user prompt says `'vendor/autoload.php'`;
 * we give one line, right for a test placed in `<project>/tests/` (docs/execution.md). It matters
 * little either way: our harness removes every autoload `require` from the test and bootstraps the
 * autoloader itself.
 */
export const PHP_AUTOLOAD_LINE = "require_once __DIR__ . '/../vendor/autoload.php';";

function systemPrompt(language: string, conventions: string[], fence: string, example: string): string {
  return [
    `You are an expert ${language} developer specializing in test-driven development (TDD) and writing high-quality unit tests.`,
    '',
    'When writing tests:',
    ...conventions.map((c) => `- ${c}`),
    '- Cover normal cases, edge cases, and error cases',
    `- Always wrap your test code in triple backticks with the language identifier (\`\`\`${fence})`,
    '',
    'Example:',
    '```' + fence,
    example,
    '```',
    '',
    'Generate comprehensive tests tailored to the specific code provided.',
  ].join('\n');
}

const RUST: LanguageTemplate = {
  displayName: 'Rust',
  fence: 'rust',
  system: systemPrompt(
    'Rust',
    [
      'Put the tests in a `#[cfg(test)] mod tests` module next to the code under test',
      'Mark each test function with `#[test]` and give it a name that says what it checks',
      'Check results with `assert_eq!`, `assert_ne!` and `assert!`',
      'Use `#[should_panic]` (with `expected = "..."` when the panic message is known) for inputs that must panic',
      'Respect ownership and borrowing: build fresh values for each test instead of sharing mutable state',
    ],
    'rust',
    [
      '#[cfg(test)]',
      'mod tests {',
      '    use super::*;',
      '',
      '    #[test]',
      '    fn divides_evenly() {',
      '        assert_eq!(checked_div(10, 2), Some(5));',
      '    }',
      '',
      '    #[test]',
      '    fn division_by_zero_gives_none() {',
      '        assert_eq!(checked_div(1, 0), None);',
      '    }',
      '',
      '    #[test]',
      '    #[should_panic(expected = "empty slice")]',
      '    fn first_of_empty_slice_panics() {',
      '        first(&[] as &[i32]);',
      '    }',
      '}',
    ].join('\n'),
  ),
  requirements: () => [
    'Start the test module with `use super::*;` so the items under test are in scope',
    'Use `assert_eq!` for expected values and `assert_ne!` where a result must differ from a value',
    'Give each test a `///` doc comment that says what behaviour it checks',
  ],
};

/** `restock` -> `Restock`: Go runs only test functions named `Test` + an upper-case letter. */
function goTestName(functionName: string): string {
  return `Test${functionName.charAt(0).toUpperCase()}${functionName.slice(1)}`;
}

const GO: LanguageTemplate = {
  displayName: 'Go',
  fence: 'go',
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

const JULIA: LanguageTemplate = {
  displayName: 'Julia',
  fence: 'julia',
  system: systemPrompt(
    'Julia',
    [
      'Use the standard `Test` library: group related checks in `@testset "description" begin ... end` blocks and check each with `@test`',
      'Use `@test_throws ExceptionType expression` for inputs that must raise an error',
      'Remember that Julia arrays are 1-based: the first element is `arr[1]` and the last is `arr[end]`',
      'Compare floating-point results with `≈` (`isapprox`) rather than `==`',
    ],
    'julia',
    [
      'using Test',
      '',
      '@testset "safe_divide" begin',
      '    @testset "divides evenly" begin',
      '        @test safe_divide(10, 2) == 5',
      '        @test safe_divide(1.0, 3.0) ≈ 0.3333333 atol=1e-6',
      '    end',
      '    @testset "errors" begin',
      '        @test_throws DivideError safe_divide(1, 0)',
      '    end',
      '    @testset "vectors" begin',
      '        v = safe_divide.([2, 4, 6], 2)',
      '        @test length(v) == 3',
      '        @test v[1] == 1 && v[end] == 3',
      '    end',
      'end',
    ].join('\n'),
  ),
  requirements: () => [
    'Give every `@testset` a descriptive name',
    'Test boundary values: empty and single-element inputs, the first and the last index',
    'Check sizes and positions with `length`, `arr[1]` and `arr[end]` (indexing starts at 1)',
  ],
};

const RUBY: LanguageTemplate = {
  displayName: 'Ruby',
  fence: 'ruby',
  system: systemPrompt(
    'Ruby',
    [
      'Use RSpec: `describe` the class or method under test, group situations with `context`, and write one `it` per behaviour',
      'State expectations with `expect(actual).to eq(expected)`, and errors with `expect { ... }.to raise_error(ErrorClass)`',
      'Set up shared objects with `let` and `before`',
    ],
    'ruby',
    [
      "require 'rspec'",
      '',
      'RSpec.describe Calculator do',
      '  let(:calculator) { Calculator.new }',
      '',
      "  describe '#divide' do",
      "    context 'with a non-zero divisor' do",
      "      it 'returns the quotient' do",
      '        expect(calculator.divide(10, 2)).to eq(5)',
      '      end',
      '    end',
      '',
      "    context 'with a zero divisor' do",
      "      it 'raises ZeroDivisionError' do",
      '        expect { calculator.divide(1, 0) }.to raise_error(ZeroDivisionError)',
      '      end',
      '    end',
      '  end',
      'end',
    ].join('\n'),
  ),
  requirements: () => [
    "Start the file with `require 'rspec'`",
    'Organise the examples with `describe`, `context` and `it` blocks',
    'Test both the success path and the failure path (invalid input, raised errors, nil results)',
  ],
};

/**
 * The runner's major version decides how test metadata is written: PHPUnit 10 and later read
 * attributes (`#[DataProvider]`; 12 no longer reads annotations), 9 reads only docblock annotations
 * (it ignores the attribute and calls the test without arguments).
 */
export function phpunitVersionRequirement(major: number): string {
  return major >= 10
    ? `The tests run on PHPUnit ${major}: declare data providers with the \`#[DataProvider('name')]\` attribute (\`use PHPUnit\\Framework\\Attributes\\DataProvider;\`) on the test method and make the provider \`public static\`; do not use \`@dataProvider\` or other docblock annotations`
    : `The tests run on PHPUnit ${major}: declare data providers with a \`/** @dataProvider name */\` docblock annotation on the test method; PHPUnit ${major} ignores attributes such as \`#[DataProvider]\``;
}

const PHP: LanguageTemplate = {
  displayName: 'PHP',
  fence: 'php',
  system: systemPrompt(
    'PHP',
    [
      'Use PHPUnit: a test class that extends `PHPUnit\\Framework\\TestCase`, with one public `test...` method per behaviour',
      `Always include \`${PHP_AUTOLOAD_LINE}\` after the opening \`<?php\` tag`,
      'Check results with `assertSame`, `assertEquals`, `assertTrue` and friends, and errors with `expectException`',
      'Use data providers for the same check over many inputs',
    ],
    'php',
    [
      '<?php',
      '',
      PHP_AUTOLOAD_LINE,
      '',
      'use PHPUnit\\Framework\\TestCase;',
      '',
      'class CalculatorTest extends TestCase',
      '{',
      '    public function testDivideReturnsQuotient(): void',
      '    {',
      '        $this->assertSame(5, (new Calculator())->divide(10, 2));',
      '    }',
      '',
      '    public function testDivideByZeroThrows(): void',
      '    {',
      '        $this->expectException(\\DivisionByZeroError::class);',
      '        (new Calculator())->divide(1, 0);',
      '    }',
      '}',
    ].join('\n'),
  ),
  requirements: (task, context) => {
    const ns = scopeOf(task, 'namespace');
    return [
      `Namespace: ${ns || '(global namespace)'}`,
      'The test class must extend `PHPUnit\\Framework\\TestCase`',
      `Include \`${PHP_AUTOLOAD_LINE}\` after the opening \`<?php\` tag`,
      'Follow the PSR-12 coding style',
      'Use `setUp()` and `tearDown()` for objects shared by several tests',
      ...(context?.phpunitMajor === undefined ? [] : [phpunitVersionRequirement(context.phpunitMajor)]),
    ];
  },
};

export const TEMPLATES: Record<LanguageId, LanguageTemplate> = { rust: RUST, go: GO, julia: JULIA, ruby: RUBY, php: PHP };

function scopeOf(task: TaskRecord, key: 'package' | 'namespace' | 'module'): string {
  const v = task.metadata[key];
  return typeof v === 'string' ? v : '';
}

/** The paper's system prompt for a language. */
export function systemPromptFor(language: LanguageId): string {
  return TEMPLATES[language].system;
}

/** The paper's user prompt for a task, without any context block (the context may add a requirement: PHP's runner). */
export function userPromptFor(task: TaskRecord, language: LanguageId, context?: PromptContext): string {
  const t = TEMPLATES[language];
  return [
    `Generate unit tests for this ${t.displayName} function from ${task.file_path}:`,
    '',
    '```' + t.fence,
    focalCodeForPrompt(task, language),
    '```',
    '',
    'Additional requirements:',
    ...t.requirements(task, context).map((r) => `- ${r}`),
  ].join('\n');
}

/** What the context modes put in front of the user prompt (context/modes), and what the language's requirements take. */
export interface PromptContext extends GatheredContext {
  /** PHP: the major version of the PHPUnit that will run the test (languages/php/runners.ts), when known. */
  phpunitMajor?: number;
}

/** The prompt for one task in one mode: the paper's system prompt, and the mode's context block + user prompt. */
export function buildPrompt(task: TaskRecord, language: LanguageId, mode: ContextMode, context: PromptContext = {}): Prompt {
  const block = contextModeSpec(mode).render(context, task);
  return { system: systemPromptFor(language), user: block + userPromptFor(task, language, context), mode, language };
}
