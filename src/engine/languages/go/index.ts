import type { LanguageAdapter } from '../types';
import { goExtraction } from './extract';
import { goToolchain } from './toolchain';

/**
 * Everything the engine knows about Go: the one object the rest of the engine looks up
 * (`adapterFor('go')`). Nothing outside this folder names the language.
 */
export const goAdapter: LanguageAdapter = {
  ...goExtraction,
  toolchain: goToolchain,

  // -- scoring: failure rules, invocation finder, tampering checks, mutation operators, baseline, prompt --



  // -- execution and editor: image recipe, local tools, LSP, editor language ids, doctor checks --



};
