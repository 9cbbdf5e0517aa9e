import type { LanguageAdapter } from '../types';
import { rubyExtraction } from './extract';
import { rubyToolchain } from './toolchain';

/**
 * Everything the engine knows about Ruby: the one object the rest of the engine looks up
 * (`adapterFor('ruby')`). Nothing outside this folder names the language.
 */
export const rubyAdapter: LanguageAdapter = {
  ...rubyExtraction,
  toolchain: rubyToolchain,

  // -- scoring: failure rules, invocation finder, tampering checks, mutation operators, baseline, prompt --



  // -- execution and editor: image recipe, local tools, LSP, editor language ids, doctor checks --



};
