import { NoEmbedderError } from '../dense';
import { bm25Mode } from './bm25';
import { denseMode } from './dense';
import { fileMode } from './file';
import { lspMode } from './lsp';
import { standardMode } from './standard';
import { MissingContextError, type ContextDeps, type ContextModeSpec } from './types';

export * from './types';

/**
 * Every context mode, in the order flags, settings and messages list them: the one registry. A new
 * mode is one file here (a ContextModeSpec) and one entry in this list; the ContextMode union, the
 * CLI's --mode, the prompt's dispatch and the needs check all follow from it.
 */
export const CONTEXT_MODE_SPECS = [standardMode, fileMode, lspMode, bm25Mode, denseMode] as const;

export type ContextMode = (typeof CONTEXT_MODE_SPECS)[number]['id'];

export const CONTEXT_MODES: readonly ContextMode[] = CONTEXT_MODE_SPECS.map((m) => m.id);

export function isContextMode(value: string): value is ContextMode {
  return (CONTEXT_MODES as readonly string[]).includes(value);
}

/** The mode registered under `id`. */
export function contextModeSpec(id: ContextMode): ContextModeSpec<ContextMode> {
  const spec = CONTEXT_MODE_SPECS.find((m) => m.id === id);
  if (!spec) throw new Error(`unknown context mode "${String(id)}": use one of ${CONTEXT_MODES.join(', ')}`);
  return spec;
}

/** `value` as a mode, or an error naming how the caller spells the choice (`--mode`, a setting). */
export function parseContextMode(value: string, spelledAs: string): ContextMode {
  if (!isContextMode(value)) throw new Error(`${spelledAs} ${value}: use one of ${CONTEXT_MODES.join(', ')}`);
  return value;
}

/**
 * Throws when `deps` lack what the mode needs, saying what is missing and (from `deps.howToProvide`)
 * how to provide it: run before any task, so a missing embedder costs no repository walk.
 */
export function checkNeeds(mode: ContextMode, deps: ContextDeps): void {
  for (const need of contextModeSpec(mode).needs(deps)) {
    const how = deps.howToProvide?.[need];
    switch (need) {
      case 'embedder':
        if (!deps.embedder) throw new NoEmbedderError(how);
        break;
      case 'lsp':
        if (!deps.lsp) throw new MissingContextError(`mode lsp needs an LSP context builder (language servers or the editor)${how ? `: ${how}` : ''}`);
        break;
    }
  }
}
