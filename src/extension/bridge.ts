import * as vscode from 'vscode';
import {
  EDITOR_DEFINITION,
  EDITOR_DOCUMENT_SYMBOL,
  EDITOR_FALLBACK,
  EDITOR_HOVER,
  EDITOR_REFERENCES,
  EDITOR_TYPE_DEFINITION,
  type BridgePositionParams,
  type EditorFallbackParams,
  type EditorDocumentSymbolParams,
  type EditorDocumentSymbolResult,
  type EditorHoverResult,
  type EditorLocationsResult,
} from '../shared/bridge-protocol';
import { hoverToText, toBridgeLocations, toBridgeSymbols } from './bridge-convert';
import type { Engine } from './engine';

/**
 * The document, opened first: a language extension only knows the files the editor has open, and the
 * engine asks about files the user may never have opened (a callee's file, a type's file).
 */
async function documentUri(uri: string): Promise<vscode.Uri> {
  const parsed = vscode.Uri.parse(uri);
  await vscode.workspace.openTextDocument(parsed);
  return parsed;
}

function positionOf(p: BridgePositionParams['position']): vscode.Position {
  return new vscode.Position(p.line, p.character);
}

/**
 * Answers the engine server's LSP questions with the editor's providers (`vscode.execute*Provider`),
 * so the language extensions the user has installed give the LSP context. An editor without a server
 * for the language answers with nothing; the server then decides (headless fallback, or an error).
 */
export function registerBridge({ client, log }: Engine): void {
  const locations =
    (command: string) =>
    async (params: BridgePositionParams): Promise<EditorLocationsResult> => {
      const uri = await documentUri(params.textDocument.uri);
      return toBridgeLocations(await vscode.commands.executeCommand<Array<vscode.Location | vscode.LocationLink>>(command, uri, positionOf(params.position)));
    };
  client.onRequest(EDITOR_DEFINITION, locations('vscode.executeDefinitionProvider'));
  client.onRequest(EDITOR_TYPE_DEFINITION, locations('vscode.executeTypeDefinitionProvider'));
  client.onRequest(EDITOR_REFERENCES, locations('vscode.executeReferenceProvider'));
  client.onRequest(EDITOR_HOVER, async (params: BridgePositionParams): Promise<EditorHoverResult> => {
    const uri = await documentUri(params.textDocument.uri);
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', uri, positionOf(params.position));
    return hoverToText(hovers);
  });
  client.onRequest(EDITOR_DOCUMENT_SYMBOL, async (params: EditorDocumentSymbolParams): Promise<EditorDocumentSymbolResult> => {
    const uri = await documentUri(params.textDocument.uri);
    const symbols = await vscode.commands.executeCommand<Array<vscode.DocumentSymbol | vscode.SymbolInformation>>('vscode.executeDocumentSymbolProvider', uri);
    return toBridgeSymbols(symbols);
  });
  // The server says this once per language; the button finds the extension that would serve it.
  client.onNotification(EDITOR_FALLBACK, async ({ note, extension }: EditorFallbackParams) => {
    log.info(note);
    const show = `Show the ${extension.name} extension`;
    if ((await vscode.window.showInformationMessage(note, show)) === show) {
      await vscode.commands.executeCommand('workbench.extensions.search', `@id:${extension.id}`);
    }
  });
}
