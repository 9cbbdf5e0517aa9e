import { contextDeps, type ContextSettings } from '../context/deps';
import { checkNeeds, contextModeSpec, type ContextDeps, type ContextMode } from '../context/modes';
import type { ContextRequest } from '../context/types';
import type { Prompt } from '../generate/types';
import { adapterFor } from '../languages';
import type { LanguageId } from '../parse/grammars';
import type { TaskRecord } from '../tasks/record';
import { buildPrompt, type PromptContext } from './templates';

/** What gathering takes: the modes' dependencies, and the request's signal. */
export interface GatherOptions extends ContextDeps {
  signal?: AbortSignal;
}

/** What `buildPrompt` needs for a task in a mode: the registered mode gathers it (context/modes). */
export async function gatherContext(request: ContextRequest, mode: ContextMode, options: GatherOptions = {}): Promise<PromptContext> {
  checkNeeds(mode, options);
  const context: PromptContext = await contextModeSpec(mode).gather(request, options, options.signal);
  // What the language's prompt reads from the checkout when it is here (PHP: the runner's major version).
  const fromCheckout = adapterFor(request.language).prompt.contextFromCheckout;
  if (fromCheckout && request.repoDir) return { ...context, ...fromCheckout(request.repoDir, request.task.file_path) };
  return context;
}

/** Prompts in one mode for many tasks, with what the mode needs built once (and released by `close`). */
export interface PromptSource {
  readonly mode: ContextMode;
  readonly context: ContextDeps;
  promptFor(task: TaskRecord, language: LanguageId, repoDir?: string, signal?: AbortSignal): Promise<Prompt>;
  close(): Promise<void>;
}

/**
 * The prompt source the settings describe; the mode's needs are checked here, before any task, with a
 * message that says which flag or setting provides what is missing.
 */
export function promptSource(settings: ContextSettings): PromptSource {
  const { mode, deps, close } = contextDeps(settings);
  checkNeeds(mode, deps);
  return {
    mode,
    context: deps,
    async promptFor(task, language, repoDir, signal) {
      return buildPrompt(task, language, mode, await gatherContext({ task, language, repoDir }, mode, { ...deps, signal }));
    },
    close,
  };
}
