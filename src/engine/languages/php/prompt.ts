import { scopeOf, systemPrompt, type LanguagePrompt } from '../../prompt/language-prompt';
import { phpunitMajorFor } from './runners';

/**
 * Where a generated PHP test is told to load Composer's autoloader from. The release's system prompt
 * says `__DIR__ . '/../../vendor/autoload.php'` while its user prompt says `'vendor/autoload.php'`;
 * we give one line, right for a test placed in `<project>/tests/` (docs/execution.md). It matters
 * little either way: our harness removes every autoload `require` from the test and bootstraps the
 * autoloader itself.
 */
export const PHP_AUTOLOAD_LINE = "require_once __DIR__ . '/../vendor/autoload.php';";

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

/** PHP's prompt (the paper's Appendix K template), the adapter's `prompt`. */
export const phpPrompt: LanguagePrompt = {
  fence: 'php',
  fenceTags: new Set(['php']),
  wrapsMethodInClass: true,
  joinBlocks: joinPhpBlocks,
  // The runner's major version, when the checkout is here and a runner fits: the requirements name it.
  contextFromCheckout: (repoDir, filePath) => {
    const major = phpunitMajorFor(repoDir, filePath);
    return major === null ? {} : { phpunitMajor: major };
  },
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

const OPEN_TAG = /^\s*<\?php\b\s*/;
const STRICT_TYPES = /^\s*declare\s*\(\s*strict_types\s*=\s*1\s*\)\s*;[ \t]*(?:\r?\n)?/;

/**
 * PHP blocks joined into one file: only the first block keeps its `<?php` (another would be a parse
 * error) and its `declare(strict_types=1);` (it must be the file's first statement); a closing `?>`
 * at the end of a block would turn the next block into HTML output, so it goes.
 */
function joinPhpBlocks(blocks: string[]): string {
  const parts = blocks.map((b, i) => {
    let code = b.replace(/\?>\s*$/, '').replace(/\s+$/, '');
    if (i > 0 && OPEN_TAG.test(code)) {
      code = code.replace(OPEN_TAG, '');
      code = code.replace(STRICT_TYPES, '');
    }
    return code;
  });
  return stripDocblockAfterDeclare(parts.join('\n\n'));
}

/**
 * The release's PHP post-processing (preprocess_utils.py): a docblock between
 * `declare(strict_types=1);` and `namespace` is removed; the blank line between them is kept.
 */
export function stripDocblockAfterDeclare(code: string): string {
  return code.replace(
    /(declare\s*\(\s*strict_types\s*=\s*1\s*\)\s*;)(\s*)(?:\/\*\*[\s\S]*?\*\/\s*)+(?=namespace\b)/,
    (_m, declare: string, space: string) => `${declare}${space.includes('\n\n') ? '\n\n' : space || '\n'}`,
  );
}
