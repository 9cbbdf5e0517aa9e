import type { LanguageAdapter } from '../types';
import { rustSuite } from './suite';
import { rustAssertions } from './assertions';
import { rustBaselineTest } from './baseline';
import { rustExtraction } from './extract';
import { rustFailureRules } from './failures';
import { rustInvocation } from './invocation';
import { rustMutationEdits } from './mutation';
import { rustPrompt } from './prompt';
import { rustTamperingRules } from './tampering';
import { rustToolchain } from './toolchain';
import { rustDoctor } from './doctor';
import { rustEditor } from './editor';
import { rustHostTools } from './host-tools';
import { rustImage } from './image';
import { resolveRustAnalyzer } from './lsp-server';
import { rustLspSyntax } from './lsp-syntax';
import { isRustTestCodeNode } from './lsp-test-code';
import { testGatedItems } from './test-items';
import { rustNative } from './native';

/**
 * Everything the engine knows about Rust: the one object the rest of the engine looks up
 * (`adapterFor('rust')`). Nothing outside this folder names the language.
 */
export const rustAdapter: LanguageAdapter = {
  ...rustExtraction,
  toolchain: rustToolchain,

  // -- scoring: failure rules, invocation finder, tampering checks, mutation operators, baseline, prompt --
  failureRules: rustFailureRules,
  invocation: rustInvocation,
  tampering: rustTamperingRules,
  mutationOperators: rustMutationEdits,
  assertions: rustAssertions,
  baseline: rustBaselineTest,
  prompt: rustPrompt,
  suite: rustSuite,

  // -- execution and editor: image recipe, local tools, LSP, editor language ids, doctor checks --

  image: rustImage,
  local: rustHostTools,
  doctor: rustDoctor,
  lsp: {
    syntax: rustLspSyntax,
    resolveServer: resolveRustAnalyzer,
    serverName: 'rust-analyzer',
    howToInstall: '`rustup component add rust-analyzer`',
    isTestCodeNode: isRustTestCodeNode,
  },
  testOnlyItems: testGatedItems,
  editor: rustEditor,
  // -- the language's own test command with coverage, the benchmark's reference (bench/execute.ts) --
  native: rustNative,
};
