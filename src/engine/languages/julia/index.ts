import type { LanguageAdapter } from '../types';
import { juliaSuite } from './suite';
import { juliaAssertions } from './assertions';
import { juliaBaselineTest } from './baseline';
import { juliaExtraction } from './extract';
import { juliaFailureRules } from './failures';
import { juliaInvocation } from './invocation';
import { juliaMutationEdits } from './mutation';
import { juliaPrompt } from './prompt';
import { juliaTamperingRules } from './tampering';
import { juliaToolchain } from './toolchain';
import { juliaDoctor } from './doctor';
import { juliaEditor } from './editor';
import { juliaHostTools } from './host-tools';
import { juliaImage } from './image';
import { resolveJuliaServer } from './lsp-server';
import { juliaLspSyntax } from './lsp-syntax';
import { juliaNative } from './native';

/**
 * Everything the engine knows about Julia: the one object the rest of the engine looks up
 * (`adapterFor('julia')`). Nothing outside this folder names the language.
 */
export const juliaAdapter: LanguageAdapter = {
  ...juliaExtraction,
  toolchain: juliaToolchain,

  // -- scoring: failure rules, invocation finder, tampering checks, mutation operators, baseline, prompt --
  failureRules: juliaFailureRules,
  invocation: juliaInvocation,
  tampering: juliaTamperingRules,
  mutationOperators: juliaMutationEdits,
  assertions: juliaAssertions,
  baseline: juliaBaselineTest,
  prompt: juliaPrompt,
  suite: juliaSuite,

  // -- execution and editor: image recipe, local tools, LSP, editor language ids, doctor checks --

  image: juliaImage,
  local: juliaHostTools,
  doctor: juliaDoctor,
  lsp: {
    syntax: juliaLspSyntax,
    resolveServer: resolveJuliaServer,
    serverName: 'LanguageServer.jl',
    howToInstall: 'in Julia: `using Pkg; Pkg.add("LanguageServer")`',
  },
  editor: juliaEditor,
  // -- the language's own test command with coverage, the benchmark's reference (bench/execute.ts) --
  native: juliaNative,
};
