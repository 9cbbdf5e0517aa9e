/**
 * The editor's answers (vscode.Location, LocationLink, Hover, DocumentSymbol…) as the plain LSP data
 * the bridge sends to the engine server. Written against the shapes, not the `vscode` module, so the
 * conversions run (and are tested) in plain Node.
 */
import type { BridgeLocation, BridgeRange, BridgeSymbol } from '../shared/bridge-protocol';

interface UriLike {
  toString(): string;
}
interface RangeLike {
  start: { line: number; character: number };
  end: { line: number; character: number };
}
export interface LocationLike {
  uri: UriLike;
  range: RangeLike;
}
export interface LocationLinkLike {
  targetUri: UriLike;
  targetRange: RangeLike;
  targetSelectionRange?: RangeLike;
}
/** vscode.MarkdownString, or a deprecated MarkedString (a string, or a language-tagged code block). */
export type HoverContentLike = string | { value: string; language?: string };
export interface HoverLike {
  contents: HoverContentLike[];
}
export interface DocumentSymbolLike {
  name: string;
  kind: number;
  range: RangeLike;
  selectionRange: RangeLike;
  children: DocumentSymbolLike[];
}
export interface SymbolInformationLike {
  name: string;
  kind: number;
  location: LocationLike;
}

export function toBridgeRange(r: RangeLike): BridgeRange {
  return { start: { line: r.start.line, character: r.start.character }, end: { line: r.end.line, character: r.end.character } };
}

/**
 * Plain locations from what a definition, type definition or references provider gives. A link
 * stands for the name it targets (its selection range), as the headless servers' links do in the
 * engine; several providers may give the same place, kept once.
 */
export function toBridgeLocations(answer: ReadonlyArray<LocationLike | LocationLinkLike> | null | undefined): BridgeLocation[] {
  const out: BridgeLocation[] = [];
  const seen = new Set<string>();
  for (const l of answer ?? []) {
    const loc: BridgeLocation =
      'targetUri' in l ? { uri: l.targetUri.toString(), range: toBridgeRange(l.targetSelectionRange ?? l.targetRange) } : { uri: l.uri.toString(), range: toBridgeRange(l.range) };
    const key = `${loc.uri}:${loc.range.start.line}:${loc.range.start.character}:${loc.range.end.line}:${loc.range.end.character}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(loc);
  }
  return out;
}

function contentText(c: HoverContentLike): string {
  if (typeof c === 'string') return c;
  // A MarkedString code block keeps its language as a fence, as the editor renders it.
  return c.language !== undefined ? `\`\`\`${c.language}\n${c.value}\n\`\`\`` : c.value;
}

/** Every hover provider's sections as one markdown text, or null when none says anything. */
export function hoverToText(hovers: readonly HoverLike[] | null | undefined): string | null {
  const parts = (hovers ?? []).flatMap((h) => h.contents.map(contentText)).filter((t) => t.trim() !== '');
  return parts.length > 0 ? parts.join('\n\n') : null;
}

/**
 * Document symbols as LSP's: nested, and with LSP's 1-based SymbolKind (the editor's enum starts at
 * File = 0, LSP's at File = 1). Flat SymbolInformation answers become childless symbols.
 */
export function toBridgeSymbols(symbols: ReadonlyArray<DocumentSymbolLike | SymbolInformationLike> | null | undefined): BridgeSymbol[] {
  // The editor's command answers with objects that are both (a location and children): the nested
  // shape is checked first so the children are kept.
  return (symbols ?? []).map((s) =>
    'selectionRange' in s
      ? { name: s.name, kind: s.kind + 1, range: toBridgeRange(s.range), selectionRange: toBridgeRange(s.selectionRange), children: toBridgeSymbols(s.children ?? []) }
      : { name: s.name, kind: s.kind + 1, range: toBridgeRange(s.location.range), selectionRange: toBridgeRange(s.location.range), children: [] },
  );
}
