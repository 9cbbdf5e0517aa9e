import type { RetrievalBlockOptions } from '../prompt/blocks';
import type { LspContext, RetrievedWindow } from './types';

/*
 * Kept apart from context/modes/types.ts so that a language's prompt (which reads the gathered context)
 * can name it without importing what the modes need (bm25, dense, windows), which reach the language
 * registry: a type-only import still makes a cycle for a reader.
 */

/** What the modes put in front of the user prompt; each mode fills its own part. */
export interface GatheredContext {
  /** `file`: the focal file as `fileContext` gives it (Rust test items stripped). */
  file?: string;
  /** `bm25` / `dense`: the ranked windows, best first. */
  windows?: RetrievedWindow[];
  /** `lsp`: the three kinds of LSP context. */
  lsp?: LspContext;
  /** Bounds for the retrieval block. */
  retrieval?: RetrievalBlockOptions;
}
