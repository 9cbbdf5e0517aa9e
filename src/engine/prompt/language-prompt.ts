import type { GatheredContext } from '../context/gathered';
import type { TaskRecord } from '../tasks/record';

/**
 * The paper's prompts (Appendix K; the release's template.py, paraphrased in
 * notes/xrepotest-release.md §6): per language a system prompt — the expert persona, the test
 * framework's conventions, "Cover normal cases, edge cases, and error cases", the fence instruction,
 * a small example, the closing line — and a user prompt — the header, the fenced focal code, and
 * "Additional requirements:" with the language's bullets.
 */
export interface LanguagePrompt {
  /** The fence's language identifier: in the system prompt's example, around the focal code, and on a baseline's or repair's test. */
  fence: string;
  /** Fence tags `extractTest` takes as this language (lower-cased); an untagged fence counts too. */
  fenceTags: ReadonlySet<string>;
  system: string;
  /** The "Additional requirements:" bullets for one task (without the leading "- "). */
  requirements(task: TaskRecord, context?: PromptContext): string[];
  /** Whether the prompt shows a method wrapped in its class signature (Go: no, its receiver type is already in the header). */
  wrapsMethodInClass: boolean;
  /** Joins the test blocks of one reply into one file, where plain concatenation would not compile (PHP's `<?php` tags). */
  joinBlocks?(blocks: string[]): string;
  /**
   * What the prompt learns from the checkout, whatever the context mode (PHP: the PHPUnit major version,
   * which decides how the requirements say to write data providers). `filePath` is the task's file_path.
   */
  contextFromCheckout?(repoDir: string, filePath: string): Partial<PromptContext>;
}

/** What the context modes put in front of the user prompt (context/modes), and what the language's requirements take. */
export interface PromptContext extends GatheredContext {
  /** PHP: the major version of the PHPUnit that will run the test (languages/php/runners.ts), when known. */
  phpunitMajor?: number;
}

/** The system prompt's shape, the same for every language: persona, conventions, fence instruction, example. */
export function systemPrompt(language: string, conventions: string[], fence: string, example: string): string {
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

/** The task's package / namespace / module as the record names it ('' where it has none). */
export function scopeOf(task: TaskRecord, key: 'package' | 'namespace' | 'module'): string {
  const v = task.metadata[key];
  return typeof v === 'string' ? v : '';
}
