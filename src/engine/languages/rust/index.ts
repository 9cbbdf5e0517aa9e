import type { LanguageAdapter } from '../types';
import { rustExtraction } from './extract';
import { rustToolchain } from './toolchain';

/**
 * Everything the engine knows about Rust: the one object the rest of the engine looks up
 * (`adapterFor('rust')`). Nothing outside this folder names the language.
 */
export const rustAdapter: LanguageAdapter = {
  ...rustExtraction,
  toolchain: rustToolchain,

  // -- scoring: failure rules, invocation finder, tampering checks, mutation operators, baseline, prompt --



  // -- execution and editor: image recipe, local tools, LSP, editor language ids, doctor checks --



};
