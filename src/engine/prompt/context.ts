import { rankBm25, type Bm25Params } from '../context/bm25';
import { rankDense, requireEmbedder, type Embedder } from '../context/dense';
import { fileContext } from '../context/file';
import type { ContextRequest, LspContext } from '../context/types';
import { buildWindows, publishedWindows, type WindowOptions } from '../context/windows';
import type { ContextMode } from '../generate/types';
import { adapterFor } from '../languages';
import type { RetrievalBlockOptions } from './blocks';
import { MissingContextError, type PromptContext } from './templates';

export interface GatherOptions {
  /** Windows kept for bm25 / dense; the paper: 10. */
  k?: number;
  windows?: WindowOptions;
  bm25?: Partial<Bm25Params>;
  /** Required by `dense` (unless `published`). */
  embedder?: Embedder;
  /** Take the windows an enriched release record carries (`retrieved_contexts_*`) instead of retrieving. */
  published?: boolean;
  /** Builds the LSP context (language servers, or the editor); required by `lsp`. */
  lsp?: (request: ContextRequest) => Promise<LspContext>;
  retrieval?: RetrievalBlockOptions;
  signal?: AbortSignal;
}

/** What `buildPrompt` needs for a task in a mode: the focal file, ranked windows, or LSP context. */
export async function gatherContext(request: ContextRequest, mode: ContextMode, options: GatherOptions = {}): Promise<PromptContext> {
  const context = await modeContext(request, mode, options);
  // What the language's prompt reads from the checkout when it is here (PHP: the runner's major version).
  const fromCheckout = adapterFor(request.language).prompt.contextFromCheckout;
  if (fromCheckout && request.repoDir) return { ...context, ...fromCheckout(request.repoDir, request.task.file_path) };
  return context;
}

async function modeContext(request: ContextRequest, mode: ContextMode, options: GatherOptions): Promise<PromptContext> {
  const { task, language } = request;
  const k = options.k ?? 10;
  switch (mode) {
    case 'standard':
      return {};
    case 'file':
      return { file: await fileContext(task, language) };
    case 'lsp':
      if (!options.lsp) throw new MissingContextError('mode lsp needs an LSP context builder (language servers or the editor)');
      return { lsp: await options.lsp(request) };
    case 'bm25':
    case 'dense': {
      if (options.published) {
        const windows = publishedWindows(task, mode, k);
        if (!windows) {
          const field = mode === 'bm25' ? 'retrieved_contexts_bm25' : 'retrieved_contexts_unixcoder';
          throw new MissingContextError(`task ${task.id ?? task.task_id} has no published ${field}: load the release's RAG file for ${mode}`);
        }
        return { windows, retrieval: options.retrieval };
      }
      // Checked before the windows are built: a missing embedder should not cost a repository walk.
      const embedder = mode === 'dense' ? requireEmbedder(options.embedder) : undefined;
      if (!request.repoDir) throw new MissingContextError(`mode ${mode} needs the repository checkout of task ${task.id ?? task.task_id}`);
      const corpus = await buildWindows(request.repoDir, task, language, options.windows);
      const windows = embedder
        ? await rankDense(task.focal_code, corpus, embedder, k, options.signal)
        : rankBm25(task.focal_code, corpus, { ...options.bm25, k });
      return { windows, retrieval: options.retrieval };
    }
  }
}
