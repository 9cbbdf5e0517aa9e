import {
  CodeLens,
  createConnection,
  ProposedFeatures,
  TextDocuments,
  TextDocumentSyncKind,
  type InitializeResult,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { URI } from 'vscode-uri';
import { checkEnvironment, formatEnvironment } from '../engine/environment';
import { classifyDocument } from '../engine/extract/document';
import { CHECK_ENVIRONMENT, type CheckEnvironmentResult } from '../shared/protocol';

/**
 * The engine server: the engine in its own process, so parsing (and later containers and
 * indexing) never blocks the extension host. For now it offers a code lens on every focal function.
 */
const connection = createConnection(ProposedFeatures.all);
const documents = new TextDocuments(TextDocument);
let filters = { minLines: 20, maxLines: 50 };
let workspaceFolders: string[] = [];

connection.onInitialize((params): InitializeResult => {
  const init = params.initializationOptions as { minLines?: number; maxLines?: number } | undefined;
  workspaceFolders = (params.workspaceFolders ?? []).map((f) => f.uri);
  filters = { minLines: init?.minLines ?? filters.minLines, maxLines: init?.maxLines ?? filters.maxLines };
  return { capabilities: { textDocumentSync: TextDocumentSyncKind.Incremental, codeLensProvider: { resolveProvider: false } } };
});

connection.onCodeLens(async (params): Promise<CodeLens[]> => {
  const doc = documents.get(params.textDocument.uri);
  if (!doc) return [];
  const folder = workspaceFolders.find((f) => doc.uri.startsWith(f.endsWith('/') ? f : f + '/'));
  const relPath = folder ? doc.uri.slice(folder.replace(/\/$/, '').length + 1) : URI.parse(doc.uri).path;
  const focal = (await classifyDocument(decodeURIComponent(relPath), doc.getText(), filters)).filter((f) => f.rule === null);
  return focal.map((f) => ({
    range: { start: { line: f.startLine - 1, character: 0 }, end: { line: f.startLine - 1, character: 0 } },
    command: { title: `XRepoTest: focal function ${f.name} (${f.nonCommentLines} lines)`, command: '' },
  }));
});

// What this machine can run (executors, images, language servers) and what to install.
connection.onRequest(CHECK_ENVIRONMENT, async (): Promise<CheckEnvironmentResult> => {
  const report = await checkEnvironment();
  return { ...report, text: formatEnvironment(report) };
});

documents.listen(connection);
connection.listen();
