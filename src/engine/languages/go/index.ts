import type { LanguageAdapter } from '../types';
import { goSuite } from './suite';
import { goAssertions } from './assertions';
import { goBaselineForLines, goBaselineTest } from './baseline';
import { goExtraction } from './extract';
import { goFailureRules } from './failures';
import { goInvocation } from './invocation';
import { goMutationEdits } from './mutation';
import { goPrompt } from './prompt';
import { goTamperingRules } from './tampering';
import { goToolchain } from './toolchain';
import { goDoctor } from './doctor';
import { goEditor } from './editor';
import { goHostTools } from './host-tools';
import { goImage } from './image';
import { resolveGopls } from './lsp-server';
import { goLspSyntax } from './lsp-syntax';
import { goNative } from './native';

/**
 * Everything the engine knows about Go: the one object the rest of the engine looks up
 * (`adapterFor('go')`). Nothing outside this folder names the language.
 */
export const goAdapter: LanguageAdapter = {
  ...goExtraction,
  toolchain: goToolchain,

  // -- scoring: failure rules, invocation finder, tampering checks, mutation operators, baseline, prompt --
  failureRules: goFailureRules,
  invocation: goInvocation,
  tampering: goTamperingRules,
  mutationOperators: goMutationEdits,
  assertions: goAssertions,
  baseline: goBaselineTest,
  baselineForLines: goBaselineForLines,
  prompt: goPrompt,
  suite: goSuite,

  // -- execution and editor: image recipe, local tools, LSP, editor language ids, doctor checks --

  image: goImage,
  local: goHostTools,
  doctor: goDoctor,
  lsp: {
    syntax: goLspSyntax,
    resolveServer: resolveGopls,
    serverName: 'gopls',
    howToInstall: '`go install golang.org/x/tools/gopls@latest` (it lands in `$(go env GOPATH)/bin`; put that folder on PATH)',
  },
  editor: goEditor,
  // -- the language's own test command with coverage, the benchmark's reference (bench/execute.ts) --
  native: goNative,
};
