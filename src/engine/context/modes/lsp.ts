import { renderLspBlock } from '../../prompt/blocks';
import { publishedLspContext } from '../lsp/published';
import { MissingContextError, required, type ContextModeSpec } from './types';

/**
 * The paper's LSP context (argument definitions, callee definitions, condition references), from
 * language servers (`deps.lsp`: headless ones, or the editor's) or as an enriched release record carries it.
 */
export const lspMode: ContextModeSpec<'lsp'> = {
  id: 'lsp',
  label: 'LSP (definitions and references from language servers)',
  needs: ({ published }) => (published ? [] : ['lsp']),
  async gather(request, deps, signal) {
    if (deps.published) {
      const published = publishedLspContext(request.task);
      if (!published) throw new MissingContextError(`task ${request.task.id ?? request.task.task_id} carries no published LSP context: load the release's lsp file`);
      return { lsp: published };
    }
    return { lsp: await deps.lsp!(request, signal) };
  },
  render: (context, task) => renderLspBlock(required(context.lsp, 'lsp', 'an LSP context', task)),
};
