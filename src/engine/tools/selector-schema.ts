import { optional } from './definition';

/**
 * The arguments that name a function, as every function tool declares them (the same words in each
 * tool's schema, so an agent learns them once).
 */
export const SELECTOR_PROPERTIES = {
  file: { type: 'string', minLength: 1, maxLength: 4096, description: 'The source file, relative to the workspace root (or absolute inside it).' },
  function: { type: 'string', minLength: 1, maxLength: 512, description: 'The function or method name, as the tool listing a file\'s focal functions gives it.' },
  line: optional({ type: 'integer', minimum: 1, description: 'Any line inside the function: needed only when the file has several functions of that name.' } as const),
} as const;

export const SELECTOR_REQUIRED = ['file', 'function'] as const;
