/**
 * A test-only language extension: what the Go extension does for the bridge, and nothing else. It
 * starts the gopls the runner names in GOPLS_ENV for Go files; no diagnostics, import links or
 * highlights, so the workbench other tests photograph stays as it was. The runner bundles it (vscode-languageclient inside) and installs
 * it into the sandbox's extensions folder.
 */
import * as vscode from 'vscode';
import { LanguageClient, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';
import { GOPLS_ENV } from '../protocol';

/** What the tests see through `extension.exports`. */
export interface GoplsClientApi {
  /** Resolves once gopls has initialized; rejects with why there is none. */
  ready: Promise<void>;
}

let client: LanguageClient | undefined;

export function activate(context: vscode.ExtensionContext): GoplsClientApi {
  const gopls = process.env[GOPLS_ENV];
  if (!gopls) return { ready: Promise.reject(new Error(`${GOPLS_ENV} is not set: the runner sets it when .tools/bin/gopls exists (bash scripts/setup.sh)`)) };
  const serverOptions: ServerOptions = {
    command: gopls,
    args: ['serve'],
    // Offline: never fetch modules or a newer Go toolchain for the fixture.
    options: { env: { ...process.env, GOPROXY: 'off', GOTOOLCHAIN: 'local' } },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: 'file', language: 'go' }],
    outputChannelName: 'gopls (test)',
    // Navigation only: no import links underlined, no diagnostics or highlighted returns in the editor.
    initializationOptions: { importShortcut: 'Definition' },
    middleware: { handleDiagnostics: () => undefined, provideDocumentHighlights: () => [] },
  };
  client = new LanguageClient('xrepotest-test-gopls', 'gopls (test)', serverOptions, clientOptions);
  const ready = client.start();
  context.subscriptions.push({ dispose: () => void client?.stop() });
  return { ready };
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}
