import { registerSecret } from '../generate/providers/errors';
import { openAiCompatibleEmbedder } from './dense';
import { HeadlessResolver } from './lsp/headless-resolver';
import { buildLspContext } from './lsp/lsp-context';
import { MissingContextError, parseContextMode, type ContextDeps, type ContextMode, type LspContextSource } from './modes';

/** An OpenAI-compatible embeddings endpoint, for `dense`. */
export interface EmbeddingSettings {
  /** Up to and including the API version, e.g. http://127.0.0.1:11434/v1; no embedder without it. */
  baseUrl?: string;
  model?: string;
  apiKey?: string;
}

/**
 * How the caller's user sets each thing, for messages: the CLI names flags, the editor its settings.
 * `mode` is a name (`--mode`); the others are what to do (`pass --embed-url URL …`).
 */
export interface ContextHints {
  mode: string;
  embedding: string;
  /** mode lsp: how language servers or the editor's are made available (when the caller may have none). */
  lsp?: string;
  /** mode lsp with headless servers: how the task's checkout is found. */
  checkout: string;
}

/** The context part of the plain settings both the CLI and the editor map to (generate/options.ts). */
export interface ContextSettings {
  mode: string;
  /** bm25 / dense: windows kept (the paper: 10). */
  k?: number;
  /** Use the context an enriched release record carries instead of computing it. */
  publishedContext?: boolean;
  embedding?: EmbeddingSettings;
  /**
   * mode lsp: `headless` starts language servers here, one per checkout (stopped by `close`); or the
   * caller's own source (the editor's bridge); none leaves `lsp` failing with `hints.lsp`.
   */
  lsp?: 'headless' | LspContextSource;
  hints: ContextHints;
}

/** The mode, what it may need, and how to release what was started for it. */
export interface ContextSetup {
  mode: ContextMode;
  deps: ContextDeps;
  close(): Promise<void>;
}

/**
 * The one place that turns settings into what the context modes need: the mode, the embedder, the
 * LSP source, k. Nothing starts here: language servers start on the first task that asks.
 */
export function contextDeps(settings: ContextSettings): ContextSetup {
  const mode = parseContextMode(settings.mode, settings.hints.mode);
  const { embedding } = settings;
  if (embedding?.apiKey) registerSecret(embedding.apiKey);
  const embedder = embedding?.baseUrl ? openAiCompatibleEmbedder({ baseUrl: embedding.baseUrl, model: embedding.model ?? '', apiKey: embedding.apiKey || undefined }) : undefined;
  const headless = settings.lsp === 'headless' ? headlessLspSource(settings.hints.checkout) : undefined;
  const lsp = headless?.source ?? (typeof settings.lsp === 'function' ? settings.lsp : undefined);
  return {
    mode,
    deps: {
      k: settings.k,
      embedder,
      published: settings.publishedContext,
      lsp,
      howToProvide: { embedder: settings.hints.embedding, ...(settings.hints.lsp ? { lsp: settings.hints.lsp } : {}) },
    },
    close: async () => headless?.close(),
  };
}

/** LSP context from headless language servers, one resolver per checkout, kept until `close`. */
export function headlessLspSource(howToCheckout: string): { source: LspContextSource; close(): Promise<void> } {
  const resolvers = new Map<string, HeadlessResolver>();
  return {
    async source(request) {
      if (!request.repoDir) throw new MissingContextError(`mode lsp needs the checkout of the task's repository (${howToCheckout})`);
      let resolver = resolvers.get(request.repoDir);
      if (!resolver) resolvers.set(request.repoDir, (resolver = new HeadlessResolver({ root: request.repoDir })));
      return buildLspContext(request.task, request.language, request.repoDir, resolver);
    },
    async close() {
      await Promise.all([...resolvers.values()].map((r) => r.close()));
    },
  };
}
