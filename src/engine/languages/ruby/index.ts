import type { LanguageAdapter } from '../types';
import { rubySuite } from './suite';
import { rubyAssertions } from './assertions';
import { rubyBaselineTest } from './baseline';
import { rubyExtraction } from './extract';
import { rubyFailureRules } from './failures';
import { rubyInvocation } from './invocation';
import { rubyMutationEdits } from './mutation';
import { rubyPrompt } from './prompt';
import { rubyTamperingRules } from './tampering';
import { rubyToolchain } from './toolchain';
import { rubyDoctor } from './doctor';
import { rubyEditor } from './editor';
import { rubyHostTools } from './host-tools';
import { rubyImage } from './image';
import { resolveTypeProf } from './lsp-server';
import { rubyLspSyntax } from './lsp-syntax';
import { rubyNative } from './native';

/**
 * Everything the engine knows about Ruby: the one object the rest of the engine looks up
 * (`adapterFor('ruby')`). Nothing outside this folder names the language.
 */
export const rubyAdapter: LanguageAdapter = {
  ...rubyExtraction,
  toolchain: rubyToolchain,

  // -- scoring: failure rules, invocation finder, tampering checks, mutation operators, baseline, prompt --
  failureRules: rubyFailureRules,
  invocation: rubyInvocation,
  tampering: rubyTamperingRules,
  mutationOperators: rubyMutationEdits,
  assertions: rubyAssertions,
  baseline: rubyBaselineTest,
  prompt: rubyPrompt,
  suite: rubySuite,

  // -- execution and editor: image recipe, local tools, LSP, editor language ids, doctor checks --

  image: rubyImage,
  local: rubyHostTools,
  doctor: rubyDoctor,
  lsp: {
    syntax: rubyLspSyntax,
    resolveServer: resolveTypeProf,
    serverName: 'TypeProf',
    howToInstall: '`gem install typeprof`',
    // A parameter's definition is the parameter itself: its type's comes from typeDefinition.
    typeDefinitionFirst: true,
  },
  editor: rubyEditor,
  // -- the language's own test command with coverage, the benchmark's reference (bench/execute.ts) --
  native: rubyNative,
};
