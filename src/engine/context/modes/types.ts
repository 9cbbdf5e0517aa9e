import type { RetrievalBlockOptions } from '../../prompt/blocks';
import type { Bm25Params } from '../bm25';
import type { Embedder } from '../dense';
import type { GatheredContext } from '../gathered';
import type { ContextRequest, LspContext } from '../types';
import type { WindowOptions } from '../windows';
import type { TaskRecord } from '../../tasks/record';

export type { GatheredContext };

/** Builds the paper's LSP context for one task: headless language servers, or the editor's (the bridge). */
export type LspContextSource = (request: ContextRequest, signal?: AbortSignal) => Promise<LspContext>;

/**
 * What context modes may need, built once per run or request (`contextDeps`, generate/options.ts) and
 * handed to every task's `gather`. Each mode says which of these it requires (`needs`).
 */
export interface ContextDeps {
  /** Windows kept for bm25 / dense; the paper: 10. */
  k?: number;
  windows?: WindowOptions;
  bm25?: Partial<Bm25Params>;
  /** Required by `dense` (unless `published`). */
  embedder?: Embedder;
  /** Take the context an enriched release record carries (`retrieved_contexts_*`, its LSP fields) instead of computing it. */
  published?: boolean;
  /** Builds the LSP context (language servers, or the editor); required by `lsp`. */
  lsp?: LspContextSource;
  retrieval?: RetrievalBlockOptions;
  /**
   * How the caller's user supplies each need (a flag, a setting), added to the message when it is
   * missing: the engine knows what is missing, only the caller knows how it is spelled.
   */
  howToProvide?: Partial<Record<ContextNeed, string>>;
}

/** The dependencies a mode can require; checked before any task (`checkNeeds`). */
export type ContextNeed = 'embedder' | 'lsp';


/**
 * One context mode, whole: its id, what it requires, how it gathers a task's context, and the block
 * it puts in front of the user prompt. Registered in ./index.ts; nothing else dispatches on mode ids.
 */
export interface ContextModeSpec<Id extends string = string> {
  readonly id: Id;
  /** For menus and messages. */
  readonly label: string;
  /** The dependencies it cannot run without, given whether published context is used instead of computing it. */
  needs(deps: Pick<ContextDeps, 'published'>): readonly ContextNeed[];
  /** The task's context; `checkNeeds` has passed. */
  gather(request: ContextRequest, deps: ContextDeps, signal?: AbortSignal): Promise<GatheredContext>;
  /** The block in front of the user prompt ('' for none); throws MissingContextError when its part is missing. */
  render(context: GatheredContext, task: TaskRecord): string;
}

/** A mode cannot get (or was not given) the context it needs. */
export class MissingContextError extends Error {}

/** `value`, or the error that says which part of the context the mode lacks for the task. */
export function required<T>(value: T | undefined, mode: string, what: string, task: TaskRecord): T {
  if (value === undefined) throw new MissingContextError(`mode ${mode} needs ${what} for task ${task.id ?? task.task_id}`);
  return value;
}
