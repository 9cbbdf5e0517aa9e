import type { LanguageAdapter } from '../types';
import { phpExtraction } from './extract';
import { phpToolchain } from './toolchain';
import { phpDoctor } from './doctor';
import { phpEditor } from './editor';
import { phpHostTools } from './host-tools';
import { phpImage } from './image';
import { resolveIntelephense } from './lsp-server';
import { phpLspSyntax } from './lsp-syntax';

/**
 * Everything the engine knows about PHP: the one object the rest of the engine looks up
 * (`adapterFor('php')`). Nothing outside this folder names the language.
 */
export const phpAdapter: LanguageAdapter = {
  ...phpExtraction,
  toolchain: phpToolchain,

  // -- scoring: failure rules, invocation finder, tampering checks, mutation operators, baseline, prompt --



  // -- execution and editor: image recipe, local tools, LSP, editor language ids, doctor checks --

  image: phpImage,
  local: phpHostTools,
  doctor: phpDoctor,
  lsp: {
    syntax: phpLspSyntax,
    resolveServer: resolveIntelephense,
    serverName: 'intelephense',
  },
  editor: phpEditor,
};
