/**
 * The bridge to the editor's language servers. The engine server asks the extension (server -> client
 * requests), and the extension answers through the editor's `vscode.execute*Provider` commands, so
 * the language extensions the user already has give the LSP context. Plain LSP shapes only (0-based
 * positions, `uri` strings): no `vscode` and no engine code here.
 */
import type { JSONSchemaType } from 'ajv';
import { withSettingsProperties, type WithSettings } from './protocol';
import { ClientRequest, int, literal, ServerNotification, ServerRequest, str } from './wire';
import type { WireLspContext } from './wire-types';

export interface BridgePosition {
  line: number;
  character: number;
}

export interface BridgeRange {
  start: BridgePosition;
  end: BridgePosition;
}

export interface BridgeLocation {
  uri: string;
  range: BridgeRange;
}

export interface BridgePositionParams {
  textDocument: { uri: string };
  position: BridgePosition;
}

/** A document symbol, nested as the editor's outline is; `kind` is LSP's SymbolKind number. */
export interface BridgeSymbol {
  name: string;
  kind: number;
  range: BridgeRange;
  selectionRange: BridgeRange;
  children: BridgeSymbol[];
}

export type EditorLocationsResult = BridgeLocation[];
export type EditorHoverResult = string | null;
export interface EditorDocumentSymbolParams {
  textDocument: { uri: string };
}
export type EditorDocumentSymbolResult = BridgeSymbol[];

/** Server -> client: the editor's answers. Locations are deduplicated; an empty list when nobody answers. */
export const EDITOR_DEFINITION = new ServerRequest<BridgePositionParams, EditorLocationsResult>('xrepotest/editor/definition');
export const EDITOR_TYPE_DEFINITION = new ServerRequest<BridgePositionParams, EditorLocationsResult>('xrepotest/editor/typeDefinition');
export const EDITOR_REFERENCES = new ServerRequest<BridgePositionParams, EditorLocationsResult>('xrepotest/editor/references');
/** The hover's text (markdown sections joined by a blank line), or null. */
export const EDITOR_HOVER = new ServerRequest<BridgePositionParams, EditorHoverResult>('xrepotest/editor/hover');
export const EDITOR_DOCUMENT_SYMBOL = new ServerRequest<EditorDocumentSymbolParams, EditorDocumentSymbolResult>('xrepotest/editor/documentSymbol');

/**
 * Server -> client notification: `auto` fell back to the headless servers for a language (sent once
 * per language); the extension shows the note with a button to the extension that would serve it.
 */
export interface EditorFallbackParams {
  language: string;
  note: string;
  /** The editor extension to suggest (`golang.go`…) and its name. */
  extension: { id: string; name: string };
}

export const EDITOR_FALLBACK = new ServerNotification<EditorFallbackParams>('xrepotest/editor/fallback');

/** Where LSP answers came from for one file: the editor's servers, or the engine's headless ones. */
export type LspSourceUsed = 'editor' | 'headless';

/**
 * Client -> server, for diagnostics and tests: ask one question about a position through the source
 * the settings choose (`lspSource`), as LSP context would.
 */
export interface BridgeProbeParams extends WithSettings {
  uri: string;
  position: BridgePosition;
  method: 'definition' | 'typeDefinition' | 'references' | 'hover';
}

export interface BridgeProbeResult {
  source: LspSourceUsed;
  /** Set when `auto` fell back to the headless servers: what the user was told. */
  note: string | null;
  /** Absolute file paths and 0-based ranges (the engine's Location). */
  locations: Array<{ file: string; range: BridgeRange }>;
  hover: string | null;
}

const POSITION_SCHEMA: JSONSchemaType<BridgePosition> = { type: 'object', required: ['line', 'character'], properties: { line: int, character: int } };

export const BRIDGE_PROBE = new ClientRequest<BridgeProbeParams, BridgeProbeResult>(
  'xrepotest/bridgeProbe',
  {
    type: 'object',
    required: ['uri', 'position', 'method', 'settings'],
    properties: { uri: str, position: POSITION_SCHEMA, method: literal(['definition', 'typeDefinition', 'references', 'hover'] as const), ...withSettingsProperties },
  },
);

/** Client -> server: the paper's LSP context for the focal function starting at `startLine` (1-based). */
export interface LspContextForParams extends WithSettings {
  uri: string;
  startLine: number;
}

export interface LspContextForResult {
  source: LspSourceUsed;
  note: string | null;
  context: WireLspContext;
  /** Server errors, snippets left out for size, the deadline (collectLspContext's notes). */
  notes: string[];
}

export const LSP_CONTEXT_FOR = new ClientRequest<LspContextForParams, LspContextForResult>(
  'xrepotest/lspContextFor',
  { type: 'object', required: ['uri', 'startLine', 'settings'], properties: { uri: str, startLine: int, ...withSettingsProperties } },
);
