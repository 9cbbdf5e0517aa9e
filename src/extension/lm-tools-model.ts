/**
 * The language-model tools' words without `vscode`: what the user is asked before a tool runs code or
 * asks a model, and how a refused call is worded.
 */
import type { EditorToolInfo } from '../shared/lm-tools-protocol';
import type { EngineSettings } from '../shared/protocol';
import { trustRefusal } from './trust-model';

/** The confirmation a tool asks for, or undefined when it only reads (focal functions, coverage). */
export function toolConfirmation(
  tool: EditorToolInfo,
  input: Record<string, unknown>,
  settings: Pick<EngineSettings, 'executor' | 'testTimeoutSeconds' | 'provider' | 'model'>,
): { title: string; message: string } | undefined {
  if (!tool.runsCode && !tool.callsModel) return undefined;
  const fn = typeof input.function === 'string' ? input.function : undefined;
  const file = typeof input.file === 'string' ? input.file : undefined;
  const target = fn ? `${fn}${file ? ` (${file})` : ''}` : file ? file : 'the workspace';
  const titles: Record<string, string> = {
    scoreTest: `Run a test of ${target}?`,
    generateTests: `Generate and run tests of ${target}?`,
    runBenchmark: 'Run the benchmark on this workspace?',
    mutants: `Run mutants of ${target} against its test?`,
  };
  const parts: string[] = [];
  if (tool.callsModel) parts.push(`XRepoTest asks ${settings.provider === 'baseline' ? 'the offline baseline (no model)' : `${settings.provider}${settings.model ? ` (${settings.model})` : ''}`} to write tests, which may cost money.`);
  if (tool.runsCode)
    parts.push(
      `It builds and runs the workspace's code with the test in a disposable copy of the workspace (executor ${settings.executor}, at most ${settings.testTimeoutSeconds} s per run); nothing is written into the workspace.`,
    );
  return { title: titles[tool.id] ?? `Run XRepoTest's ${tool.id}?`, message: parts.join(' ') };
}

/** A tool that runs code, asked for in a workspace not trusted: the run commands' refusal. */
export function toolTrustRefusal(tool: EditorToolInfo): string | undefined {
  if (!tool.runsCode) return undefined;
  const what: Record<string, string> = { scoreTest: 'Scoring a test', generateTests: 'Generating tests', runBenchmark: 'Benchmarking the workspace', mutants: 'Mutation testing' };
  return `XRepoTest: ${trustRefusal(what[tool.id] ?? tool.id)}`;
}
