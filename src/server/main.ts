import {
  CodeLensRefreshRequest,
  createConnection,
  LSPErrorCodes,
  ProposedFeatures,
  TextDocuments,
  TextDocumentSyncKind,
  type InitializeResult,
  type RequestMessage,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { SETTINGS_CHANGED, type EngineStartOptions } from '../shared/protocol';
import { registerBridge } from './bridge';
import { checkParams } from './params-check';
import { registerAnnotator } from './annotator';
import { registerBench } from './bench';
import { EditorRunFolder } from './editor-run';
import { editorChatOver } from './editor-chat';
import { registerEnvironment } from './environment';
import { registerLmTools } from './lm-tools';
import { registerScoring } from './scoring';
import { ServerState } from './state';
import { registerTesting } from './testing';
import { registerImproving } from './improving';
import { registerMutating } from './mutating';
import { registerWarmUp } from './warm-workspace';
import { registerChanges } from './changes';
import { onClientNotification } from './wire';

/**
 * The engine server: the engine in its own process, so parsing, containers, language servers and
 * benchmarks never block the extension host. Each feature registers its handlers from its module.
 */
// A request cancelled while still queued (the server busy with another) is answered as cancelled;
// by default vscode-jsonrpc drops such a cancellation and runs the request anyway.
const connection = createConnection(ProposedFeatures.all, {
  cancelUndispatched: (message) => ({ jsonrpc: '2.0', id: (message as RequestMessage).id, error: { code: LSPErrorCodes.RequestCancelled, message: 'cancelled before it started' } }),
});
const documents = new TextDocuments(TextDocument);
const state = new ServerState(connection, documents);
state.editorChat = (selector) => editorChatOver(connection, selector);

connection.onInitialize((params): InitializeResult => {
  const { storagePath, ...init } = (params.initializationOptions ?? {}) as EngineStartOptions;
  state.workspaceFolders = (params.workspaceFolders ?? []).map((f) => f.uri);
  const settings = { ...state.settings, ...init };
  try {
    // The client's settings at start, checked as every request's are; the defaults stand in for bad ones.
    state.settings = checkParams(SETTINGS_CHANGED, settings, 'initializationOptions');
  } catch (e) {
    connection.console.error(`the editor's settings were refused, the defaults are used until they change: ${(e as Error).message}`);
  }
  if (storagePath) state.editorRun = EditorRunFolder.inStorage(storagePath);
  return { capabilities: { textDocumentSync: TextDocumentSyncKind.Incremental, codeLensProvider: { resolveProvider: false } } };
});

onClientNotification(connection, SETTINGS_CHANGED, (settings) => {
  state.settings = settings;
  void connection.sendRequest(CodeLensRefreshRequest.type);
});

registerEnvironment(state);
registerScoring(state);
registerBridge(state);
registerAnnotator(state);
registerTesting(state);
registerImproving(state);
registerMutating(state);
registerWarmUp(state);
registerChanges(state);
registerBench(state);
registerLmTools(state);

documents.listen(connection);
connection.listen();
