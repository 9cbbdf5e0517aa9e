import * as path from 'node:path';
import type { Connection } from 'vscode-languageserver/node';
import { ServerMissingError } from '../engine/context/lsp/commands';
import { HeadlessResolver, toLocations } from '../engine/context/lsp/headless-resolver';
import { collectLspContext } from '../engine/context/lsp/lsp-context';
import { fileUri, uriToFile } from '../engine/context/lsp/server';
import type { ContextRequest, Location, Position, SymbolResolver } from '../engine/context/types';
import { focalPathInRepo } from '../engine/execute/sandbox';
import { taskForDocumentFunction } from '../engine/extract/document';
import { adapterFor, adapterForPath, languageChoice, type LanguageId } from '../engine/languages';
import {
  BRIDGE_PROBE,
  EDITOR_DEFINITION,
  EDITOR_DOCUMENT_SYMBOL,
  EDITOR_FALLBACK,
  EDITOR_HOVER,
  EDITOR_REFERENCES,
  EDITOR_TYPE_DEFINITION,
  LSP_CONTEXT_FOR,
  type BridgePositionParams,
  type BridgeProbeParams,
  type BridgeProbeResult,
  type BridgeSymbol,
  type EditorFallbackParams,
  type EditorDocumentSymbolParams,
  type LspContextForParams,
  type LspContextForResult,
  type LspSourceUsed,
} from '../shared/bridge-protocol';
import type { EngineSettings } from '../shared/protocol';
import { editorLanguageExtension, editorMissingMessage, fallbackNote, focalNamePosition, headlessServerName, noServerMessage } from './bridge-fallback';
import type { ServerState } from './state';
import { onClientRequest } from './wire';
import { wireLspContext } from './wire-mapping';

/** How long a language extension that is still starting may take to answer before it counts as absent. */
const EDITOR_START_WAIT_MS = 3000;
const EDITOR_RETRY_MS = 500;
/** One question to the editor while deciding; a server that hangs must not hang the decision. */
const EDITOR_QUESTION_MS = 30_000;

/**
 * SymbolResolver over the editor's language servers: each question goes to the extension, which
 * answers through `vscode.execute*Provider` (src/extension/bridge.ts).
 */
export class EditorResolver implements SymbolResolver {
  constructor(private readonly connection: Connection) {}

  definition(file: string, position: Position): Promise<Location[]> {
    return this.locations(EDITOR_DEFINITION, file, position);
  }

  typeDefinition(file: string, position: Position): Promise<Location[]> {
    return this.locations(EDITOR_TYPE_DEFINITION, file, position);
  }

  references(file: string, position: Position): Promise<Location[]> {
    return this.locations(EDITOR_REFERENCES, file, position);
  }

  hover(file: string, position: Position): Promise<string | null> {
    return this.connection.sendRequest(EDITOR_HOVER, positionParams(file, position));
  }

  documentSymbols(file: string): Promise<BridgeSymbol[]> {
    const params: EditorDocumentSymbolParams = { textDocument: { uri: fileUri(file) } };
    return this.connection.sendRequest(EDITOR_DOCUMENT_SYMBOL, params);
  }

  /** The editor's servers belong to the editor: nothing to stop. */
  async close(): Promise<void> {}

  private async locations(type: typeof EDITOR_DEFINITION, file: string, position: Position): Promise<Location[]> {
    return toLocations(await this.connection.sendRequest(type, positionParams(file, position)));
  }
}

function positionParams(file: string, position: Position): BridgePositionParams {
  return { textDocument: { uri: fileUri(file) }, position };
}

function withTimeout<T>(p: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => (timer = setTimeout(() => resolve(fallback), ms)));
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

function abortable<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return p;
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason instanceof Error ? signal.reason : new Error('cancelled'));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The resolver that answers for a file, where it is, and what the user was told about it. */
export interface ResolverChoice {
  resolver: SymbolResolver;
  source: LspSourceUsed;
  note: string | null;
}

/**
 * Chooses between the editor's language servers and the engine's headless ones, per the setting
 * `xrepotest.lsp.source`, and keeps the headless resolvers (one per workspace root; each starts one
 * server per language and project inside it) until the engine server shuts down.
 */
export class LspBridge {
  readonly editor: EditorResolver;
  private readonly headless = new Map<string, HeadlessResolver>();
  /** Languages the editor had no server for: asked once more each time, without waiting for it to start. */
  private readonly absentInEditor = new Set<LanguageId>();
  private readonly told = new Set<LanguageId>();

  constructor(
    private readonly connection: Connection,
    private readonly options: { editorStartWaitMs?: number } = {},
  ) {
    this.editor = new EditorResolver(connection);
  }

  /**
   * Whether the editor has a language server for the file: it outlines the file, or answers a
   * definition at `position`. Both empty means no provider at all (the editor's commands answer an
   * empty list then); a language extension still starting gets a few seconds, the first time.
   */
  async editorServes(language: LanguageId, file: string, position: Position): Promise<boolean> {
    const until = Date.now() + (this.absentInEditor.has(language) ? 0 : (this.options.editorStartWaitMs ?? EDITOR_START_WAIT_MS));
    for (;;) {
      const symbols = await withTimeout(this.editor.documentSymbols(file).catch(() => []), EDITOR_QUESTION_MS, []);
      const answers = symbols.length > 0 || (await withTimeout(this.editor.definition(file, position).catch(() => []), EDITOR_QUESTION_MS, [])).length > 0;
      if (answers) {
        this.absentInEditor.delete(language);
        return true;
      }
      if (Date.now() >= until) break;
      await delay(EDITOR_RETRY_MS);
    }
    this.absentInEditor.add(language);
    return false;
  }

  /** The resolver for a file under `root` per the setting; `auto` without an editor server says so. */
  async choose(language: LanguageId, file: string, position: Position, root: string, source: EngineSettings['lspSource']): Promise<ResolverChoice> {
    if (source === 'headless') return { resolver: this.headlessFor(root), source: 'headless', note: null };
    if (await this.editorServes(language, file, position)) return { resolver: this.editor, source: 'editor', note: null };
    if (source === 'editor') throw new Error(editorMissingMessage(language));
    const note = fallbackNote(language);
    this.connection.console.info(`LSP context for ${path.basename(file)}: no ${adapterFor(language).displayName} server in the editor; using the headless ${headlessServerName(language)} (${root})`);
    if (!this.told.has(language)) {
      this.told.add(language);
      const params: EditorFallbackParams = { language, note, extension: editorLanguageExtension(language) };
      void this.connection.sendNotification(EDITOR_FALLBACK, params);
    }
    return { resolver: this.headlessFor(root), source: 'headless', note };
  }

  /** The paper's LSP context for a task, from the source the settings choose. */
  async context(request: ContextRequest, settings: EngineSettings, signal?: AbortSignal): Promise<LspContextForResult> {
    if (!request.repoDir) throw new Error('LSP context needs the file to be inside an open workspace folder');
    const focalFile = path.join(path.resolve(request.repoDir), focalPathInRepo(request.task));
    const choice = await abortable(this.choose(request.language, focalFile, focalNamePosition(request.task), request.repoDir, settings.lspSource), signal);
    try {
      const { argumentDefinitions, calleeDefinitions, conditionReferences, notes } = await abortable(
        collectLspContext(request.task, request.language, request.repoDir, choice.resolver),
        signal,
      );
      return { source: choice.source, note: choice.note, context: wireLspContext({ argumentDefinitions, calleeDefinitions, conditionReferences }), notes };
    } catch (e) {
      if (e instanceof ServerMissingError && choice.note) throw new Error(noServerMessage(request.language, e.message));
      throw e;
    }
  }

  async close(): Promise<void> {
    const all = [...this.headless.values()];
    this.headless.clear();
    await Promise.all(all.map((r) => r.close().catch(() => undefined)));
  }

  private headlessFor(root: string): HeadlessResolver {
    const key = path.resolve(root);
    let r = this.headless.get(key);
    if (!r) this.headless.set(key, (r = new HeadlessResolver({ root: key })));
    return r;
  }
}

/**
 * The bridge on the server: LSP context for mode `lsp` (state.lspContext), the two diagnostic
 * requests (one question, or a focal function's whole context, with where the answers came from),
 * and the headless servers stopped at shutdown.
 */
export function registerBridge(state: ServerState): void {
  const { connection, documents } = state;
  const bridge = new LspBridge(connection);
  state.lspContext = async (request, signal, settings) => (await bridge.context(request, settings ?? state.settings, signal)).context;

  onClientRequest(connection, BRIDGE_PROBE, async (params: BridgeProbeParams): Promise<BridgeProbeResult> => {
    const file = uriToFile(params.uri);
    const adapter = adapterForPath(file);
    if (!adapter) throw new Error(`${path.basename(file)} is not ${languageChoice()}`);
    const { root } = state.workspaceOf(params.uri);
    const { resolver, source, note } = await bridge.choose(adapter.id, file, params.position, root, params.settings.lspSource);
    if (params.method === 'hover') return { source, note, locations: [], hover: await resolver.hover(file, params.position) };
    return { source, note, locations: await resolver[params.method](file, params.position), hover: null };
  });

  onClientRequest(connection, LSP_CONTEXT_FOR, async (params: LspContextForParams, token): Promise<LspContextForResult> => {
    const doc = documents.get(params.uri);
    if (!doc) throw new Error(`${params.uri} is not open in the editor`);
    const { root, relPath } = state.workspaceOf(params.uri);
    const adapter = adapterForPath(relPath);
    const filters = { minLines: params.settings.minLines, maxLines: params.settings.maxLines };
    const task = adapter ? await taskForDocumentFunction(root, relPath, doc.getText(), params.startLine, filters) : null;
    if (!adapter || !task) throw new Error(`no focal function starts on line ${params.startLine} of ${relPath}`);
    const controller = new AbortController();
    token.onCancellationRequested(() => controller.abort(new Error('cancelled')));
    return bridge.context({ task, language: adapter.id, repoDir: root }, params.settings, controller.signal);
  });

  // One shutdown handler per connection: the executors' reused containers end here too.
  connection.onShutdown(() => Promise.all([bridge.close(), state.close()]).then(() => undefined));
}
