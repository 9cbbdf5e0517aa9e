/**
 * The bridge to the editor's language servers. The engine server asks the extension (server -> client
 * requests), and the extension answers through the editor's `vscode.execute*Provider` commands, so
 * the language extensions the user already has give the LSP context. Plain LSP shapes only (0-based
 * positions, `uri` strings): no `vscode` and no engine code here.
 */
import type { LspContext } from '../engine/context/types';
import type { WithSettings } from './protocol';

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

/** Server -> client: the editor's answers. Locations are deduplicated; an empty list when nobody answers. */
export const EDITOR_DEFINITION = 'xrepotest/editor/definition';
export const EDITOR_TYPE_DEFINITION = 'xrepotest/editor/typeDefinition';
export const EDITOR_REFERENCES = 'xrepotest/editor/references';
/** The hover's text (markdown sections joined by a blank line), or null. */
export const EDITOR_HOVER = 'xrepotest/editor/hover';
export const EDITOR_DOCUMENT_SYMBOL = 'xrepotest/editor/documentSymbol';

export type EditorLocationsResult = BridgeLocation[];
export type EditorHoverResult = string | null;
export interface EditorDocumentSymbolParams {
  textDocument: { uri: string };
}
export type EditorDocumentSymbolResult = BridgeSymbol[];

/**
 * Server -> client notification: `auto` fell back to the headless servers for a language (sent once
 * per language); the extension shows the note with a button to the extension that would serve it.
 */
export const EDITOR_FALLBACK = 'xrepotest/editor/fallback';

export interface EditorFallbackParams {
  language: string;
  note: string;
  /** The editor extension to suggest (`golang.go`…) and its name. */
  extension: { id: string; name: string };
}

/** Where LSP answers came from for one file: the editor's servers, or the engine's headless ones. */
export type LspSourceUsed = 'editor' | 'headless';

/**
 * Client -> server, for diagnostics and tests: ask one question about a position through the source
 * the settings choose (`lspSource`), as LSP context would.
 */
export const BRIDGE_PROBE = 'xrepotest/bridgeProbe';

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

/** Client -> server: the paper's LSP context for the focal function starting at `startLine` (1-based). */
export const LSP_CONTEXT_FOR = 'xrepotest/lspContextFor';

export interface LspContextForParams extends WithSettings {
  uri: string;
  startLine: number;
}

export interface LspContextForResult {
  source: LspSourceUsed;
  note: string | null;
  context: LspContext;
  /** Server errors, snippets left out for size, the deadline (collectLspContext's notes). */
  notes: string[];
}
