import type { LanguageAssertions } from '../../score/assertions';

/** PHP: PHPUnit's `$this->assert*` / `self::assert*` / `Assert::assert*`, `expectException*`, `fail()`, and Pest's `expect(`. */
export const phpAssertions: LanguageAssertions = {
  checks: [/(->|::)assert\w*\s*\(/, /->expectException\w*\s*\(/, /(->|::)fail\s*\(/, /\bexpect\s*\(/],
  lineComments: ['//', '#'],
  blockComments: [['/*', '*/']],
};
