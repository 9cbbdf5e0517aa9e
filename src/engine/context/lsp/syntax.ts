import type { LanguageId } from '../../parse/grammars';
import { adapterFor } from '../../languages';
import type { LspSyntax } from './syntax-kit';

export { collect, type LspSyntax } from './syntax-kit';

/** The language's syntax for LSP context: each language's own, in languages/<id>/lsp-syntax.ts. */
export function lspSyntax(language: LanguageId): LspSyntax {
  return adapterFor(language).lsp.syntax;
}
