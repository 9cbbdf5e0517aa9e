/**
 * The languages the engine knows, by id. A new language adds its id here and its folder's adapter to
 * languages/index.ts; nothing outside languages/ lists them (test/unit/language-lists.test.ts checks
 * the lists that cannot import the engine).
 */
export type LanguageId = 'rust' | 'go' | 'php' | 'ruby' | 'julia';
export const LANGUAGE_IDS: readonly LanguageId[] = ['rust', 'go', 'php', 'ruby', 'julia'];
