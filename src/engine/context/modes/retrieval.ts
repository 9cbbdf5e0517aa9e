import { renderRetrievalBlock } from '../../prompt/blocks';
import type { ContextRequest } from '../types';
import { buildWindows, publishedWindows, type CodeWindow, type RankedWindow } from '../windows';
import { MissingContextError, required, type ContextDeps, type ContextModeSpec, type ContextNeed } from './types';

interface RetrievalModeParts<Id extends 'bm25' | 'dense'> {
  id: Id;
  label: string;
  /** The release's field with this retriever's windows (`--published-context`). */
  publishedField: string;
  /** Needed unless the published windows are used. */
  computeNeeds: readonly ContextNeed[];
  rank(query: string, corpus: readonly CodeWindow[], deps: ContextDeps, k: number, signal?: AbortSignal): Promise<RankedWindow[]>;
}

/**
 * A retrieval mode: the k repository windows (RepoCoder's sliding windows, leakage removed) a
 * retriever ranks closest to the focal code, or the windows an enriched release record carries.
 */
export function retrievalMode<Id extends 'bm25' | 'dense'>(parts: RetrievalModeParts<Id>): ContextModeSpec<Id> {
  const { id } = parts;
  return {
    id,
    label: parts.label,
    needs: ({ published }) => (published ? [] : parts.computeNeeds),
    async gather(request: ContextRequest, deps: ContextDeps, signal?: AbortSignal) {
      const { task } = request;
      const k = deps.k ?? 10;
      if (deps.published) {
        const windows = publishedWindows(task, id, k);
        if (!windows) throw new MissingContextError(`task ${task.id ?? task.task_id} has no published ${parts.publishedField}: load the release's RAG file for ${id}`);
        return { windows, retrieval: deps.retrieval };
      }
      if (!request.repoDir) throw new MissingContextError(`mode ${id} needs the repository checkout of task ${task.id ?? task.task_id}`);
      const corpus = await buildWindows(request.repoDir, task, request.language, deps.windows);
      return { windows: await parts.rank(task.focal_code, corpus, deps, k, signal), retrieval: deps.retrieval };
    },
    render: (context, task) => renderRetrievalBlock(required(context.windows, id, 'retrieved windows', task), context.retrieval),
  };
}
