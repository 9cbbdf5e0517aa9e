import * as path from 'node:path';
import type { Connection } from 'vscode-languageserver/node';
import { TextDocuments } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { URI } from 'vscode-uri';
import type { ContextRequest, LspContext } from '../engine/context/types';
import type { EditorChat } from '../engine/generate/editor-chat';
import { createExecutor, isExecutorKind } from '../engine/execute/create-executor';
import type { Executor } from '../engine/execute/types';
import { DEFAULT_ENGINE_SETTINGS, type EngineSettings } from '../shared/protocol';
import type { EditorRunFolder } from './editor-run';

/**
 * Builds the paper's LSP context for a task; the bridge (editor first, headless servers second) sets it.
 * `settings` are the request's (their `lspSource` chooses the servers); the client's last known without.
 */
export type LspContextBuilder = (request: ContextRequest, signal?: AbortSignal, settings?: EngineSettings) => Promise<LspContext>;

/** Provider `vscode-lm`: the editor's chat model chosen by `selector` (`xrepotest.model`), asked through the extension. */
export type EditorChatBuilder = (selector: string) => EditorChat;

/**
 * What the server's features share: the connection, open documents, the workspace folders, the
 * settings the client started with, one executor per kind (their caches and images are reused).
 */
export class ServerState {
  settings: EngineSettings = DEFAULT_ENGINE_SETTINGS;
  workspaceFolders: string[] = [];
  /** Set by the bridge; mode `lsp` fails with a clear message without it. */
  lspContext: LspContextBuilder | undefined;
  /** Set at start (src/server/main.ts): provider `vscode-lm` asks the editor's chat models through it. */
  editorChat: EditorChatBuilder | undefined;
  /** Where editor scorings are kept (the extension's storage for this workspace); none: kept nowhere. */
  editorRun: EditorRunFolder | undefined;
  /** Packages whose environment was ready in this server's life, per executor (environment.ts `prepareFocal`). */
  readonly readyPackages = new Set<string>();
  private readonly executors = new Map<string, Promise<Executor>>();

  constructor(
    readonly connection: Connection,
    readonly documents: TextDocuments<TextDocument>,
  ) {}

  /** The workspace folder holding `uri` (its checkout root) and the file's path inside it. */
  workspaceOf(uri: string): { root: string; relPath: string } {
    const folder = this.workspaceFolders.find((f) => uri.startsWith(f.endsWith('/') ? f : f + '/'));
    const file = URI.parse(uri).fsPath;
    const root = folder ? URI.parse(folder).fsPath : path.dirname(file);
    return { root, relPath: path.relative(root, file).split(path.sep).join('/') };
  }

  executor(kind: EngineSettings['executor']): Promise<Executor> {
    let e = this.executors.get(kind);
    if (!e) {
      // A value the settings do not know runs locally, the settings' default (as before the registry).
      // No container is kept between the editor's scorings (each one gets its own, removed after it).
      // A slow engine is waited for as the settings say, the wait said in the server's log.
      const connect = { timeoutMs: this.settings.engineTimeoutSeconds * 1000, onWait: (m: string) => this.connection.console.info(m) };
      e = createExecutor(isExecutorKind(kind) ? kind : DEFAULT_ENGINE_SETTINGS.executor, { reuse: false, connect, toolsInBackground: true });
      // A failed start (no engine) is not cached: the user may start Podman and try again.
      e.catch(() => this.executors.delete(kind));
      this.executors.set(kind, e);
    }
    return e;
  }

  /** Releases what the executors keep between scorings (reused containers): at shutdown. */
  async close(): Promise<void> {
    const started = [...this.executors.values()];
    this.executors.clear();
    await Promise.all(started.map((e) => e.then((x) => x.close?.(), () => undefined)));
  }
}
