import type { LanguageAdapter } from '../types';
import { juliaExtraction } from './extract';
import { juliaToolchain } from './toolchain';

/**
 * Everything the engine knows about Julia: the one object the rest of the engine looks up
 * (`adapterFor('julia')`). Nothing outside this folder names the language.
 */
export const juliaAdapter: LanguageAdapter = {
  ...juliaExtraction,
  toolchain: juliaToolchain,

  // -- scoring: failure rules, invocation finder, tampering checks, mutation operators, baseline, prompt --



  // -- execution and editor: image recipe, local tools, LSP, editor language ids, doctor checks --



};
