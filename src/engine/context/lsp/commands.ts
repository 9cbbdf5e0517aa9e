import type { LanguageId } from '../../parse/grammars';
import { adapterFor } from '../../languages';
import type { ServerSpec } from './server-kit';

export { ServerMissingError, projectToolsBin, type ServerSpec } from './server-kit';

/** The server for a language (languages/<id>/lsp-server.ts), or a ServerMissingError naming what to install. */
export function resolveServer(language: LanguageId): ServerSpec {
  return adapterFor(language).lsp.resolveServer();
}
