/**
 * The engine server's custom requests, typed once for both sides (the server in src/server and the
 * extension in src/extension). Plain types only: no `vscode` and no engine code here. Each feature's
 * requests live in their own module next to this one (scoring, bridge, bench).
 */
import type { EnvironmentReport } from '../engine/environment';

export const CHECK_ENVIRONMENT = 'xrepotest/checkEnvironment';
export type CheckEnvironmentResult = EnvironmentReport & { text: string };

export type ContextModeName = 'standard' | 'file' | 'lsp' | 'bm25' | 'dense';
export type ProviderSetting = 'baseline' | 'anthropic' | 'openai' | 'openai-compatible' | 'replay';

/**
 * The editor's settings as the engine needs them, sent with every request so a changed setting
 * takes effect at once. API keys never travel here: see `Credentials`.
 */
export interface EngineSettings {
  minLines: number;
  maxLines: number;
  provider: ProviderSetting;
  model: string;
  baseUrl: string;
  /** replay: the recorded generations (JSONL). */
  replayFile: string;
  mode: ContextModeName;
  /** mode lsp: the editor's language servers (through the bridge), the engine's headless ones, or editor first. */
  lspSource: 'auto' | 'editor' | 'headless';
  executor: 'local' | 'docker';
  testTimeoutSeconds: number;
  memoryMb: number;
  /** Mutation testing of a passing test from the editor (its score joins the lens as `MS k/n`). */
  mutation: boolean;
  /** Seconds one provider request may take before it is abandoned (and retried). */
  requestTimeoutSeconds: number;
  /** Retries of a failed or timed-out provider request, after the first attempt. */
  requestRetries: number;
  /** mode dense: an OpenAI-compatible embeddings endpoint (its key, if any, travels in `Credentials`). */
  embeddingBaseUrl: string;
  embeddingModel: string;
}

/** What the extension starts the server with: its settings, and where the workspace's editor run folder goes. */
export type EngineStartOptions = Partial<EngineSettings> & {
  /** The extension's storage for this workspace (else its global storage): editor scorings go to `runs/editor` in it. */
  storagePath?: string;
};

export const DEFAULT_ENGINE_SETTINGS: EngineSettings = {
  minLines: 20,
  maxLines: 50,
  provider: 'baseline',
  model: '',
  baseUrl: '',
  replayFile: '',
  mode: 'standard',
  lspSource: 'auto',
  executor: 'local',
  testTimeoutSeconds: 300,
  memoryMb: 2048,
  mutation: true,
  requestTimeoutSeconds: 300,
  requestRetries: 3,
  embeddingBaseUrl: '',
  embeddingModel: '',
};

/**
 * The provider's API key, read from the editor's secret storage for the one request that needs it.
 * The server keeps it in memory for that request only and registers it for redaction, so it is never
 * logged.
 */
export interface Credentials {
  apiKey?: string;
  /** mode dense: the embedding endpoint's key, sent only when the mode is dense. */
  embeddingApiKey?: string;
}

/** What every engine request carries besides its own parameters. */
export interface WithSettings {
  settings: EngineSettings;
  credentials?: Credentials;
}

/** The client's settings changed (the filters change which functions get lenses). */
export const SETTINGS_CHANGED = 'xrepotest/settingsChanged';
