import type { LanguageAdapter } from '../types';
import { phpSuite } from './suite';
import { phpAssertions } from './assertions';
import { phpBaselineTest } from './baseline';
import { phpExtraction } from './extract';
import { phpFailureRules } from './failures';
import { phpInvocation } from './invocation';
import { phpMutationEdits } from './mutation';
import { phpPrompt } from './prompt';
import { phpTamperingRules } from './tampering';
import { phpToolchain } from './toolchain';
import { phpDoctor } from './doctor';
import { phpEditor } from './editor';
import { phpHostTools } from './host-tools';
import { phpImage } from './image';
import { resolveIntelephense } from './lsp-server';
import { phpLspSyntax } from './lsp-syntax';
import { phpNative } from './native';

/**
 * Everything the engine knows about PHP: the one object the rest of the engine looks up
 * (`adapterFor('php')`). Nothing outside this folder names the language.
 */
export const phpAdapter: LanguageAdapter = {
  ...phpExtraction,
  toolchain: phpToolchain,

  // -- scoring: failure rules, invocation finder, tampering checks, mutation operators, baseline, prompt --
  failureRules: phpFailureRules,
  invocation: phpInvocation,
  tampering: phpTamperingRules,
  mutationOperators: phpMutationEdits,
  assertions: phpAssertions,
  baseline: phpBaselineTest,
  prompt: phpPrompt,
  suite: phpSuite,

  // -- execution and editor: image recipe, local tools, LSP, editor language ids, doctor checks --

  image: phpImage,
  local: phpHostTools,
  doctor: phpDoctor,
  lsp: {
    syntax: phpLspSyntax,
    resolveServer: resolveIntelephense,
    serverName: 'intelephense',
    howToInstall: 'intelephense (a Node.js language server) was not found next to XRepoTest; the other context modes (setting xrepotest.mode) work without it',
  },
  editor: phpEditor,
  // -- the language's own test command with coverage, the benchmark's reference (bench/execute.ts) --
  native: phpNative,
};
