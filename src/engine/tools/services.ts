import type { ExecutorKind } from '../execute/create-executor';
import type { Executor } from '../execute/types';
import type { FilterConfig } from '../extract/filters';
import type { GenerationSettings } from '../generate/options';
import type { ScoringRunFolder } from '../task/scoring-run-folder';
import type { Workspace } from './workspace';

/**
 * What the tools run with, decided by the user who starts them — never by the agent that calls them:
 * the workspace, where tests run and within which limits, which model writes tests. The MCP server
 * builds it from its command line (src/cli/mcp-command.ts); the editor builds it from its settings
 * and secret storage.
 */
export interface ToolServices {
  workspace: Workspace;
  /** The executor every run goes through (a disposable copy, isolated): the same one the editor's scoring uses. */
  executor(): Promise<Executor>;
  /** Its kind: recorded in a benchmark's settings, and in the words of an environment verdict. */
  executorKind: ExecutorKind;
  /** Provider, model, mode and where keys come from (the environment, or the editor's secret storage). */
  generation: GenerationSettings;
  /** Per run: the test phase's time and the memory limit (the editor's defaults unless the user set others). */
  limits: { testMs: number; memoryBytes: number };
  /** The benchmark's filter, for listing focal functions and for a benchmark of the workspace. */
  filters: Pick<FilterConfig, 'minLines' | 'maxLines'>;
  /** Where scorings are kept, and read back as current scores and last known coverage. */
  scorings: ScoringRunFolder;
  /** The folder run_benchmark's run folders go in (outside the workspace). */
  benchRuns: string;
  /** Benchmark tasks at once. */
  concurrency: number;
  /** A file's text as the user sees it (the editor: its buffer); default: read from disk. */
  readText?(abs: string): string;
  /** Lines for the user's log (the MCP server's standard error), never for the agent. */
  log(line: string): void;
}

/** Progress of a long call: `done` of `total` units (tasks, tests), and what it is doing now. */
export interface ToolProgress {
  done: number;
  total?: number;
  message: string;
}

/** One call: its cancellation, where its progress goes, and who asked (records say which agent wrote a test). */
export interface ToolCall {
  signal: AbortSignal;
  progress?(p: ToolProgress): void;
  /** The agent's name as its client gave it (`claude-code`); records label its tests with it. */
  agent?: string;
}
