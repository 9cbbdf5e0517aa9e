/**
 * The engine server's custom requests, declared once for both sides (the server in src/server and the
 * extension in src/extension) as typed messages (./wire.ts). Plain types only: no `vscode` and no
 * engine code here. Each feature's requests live in their own module next to this one (scoring,
 * bridge, bench, annotator); this one holds the settings every request carries.
 */
import type { JSONSchemaType } from 'ajv';
import { bool, ClientNotification, ClientRequest, int, literal, num, optional, str } from './wire';
import type { WireEnvironmentReport } from './wire-types';

export const CONTEXT_MODE_NAMES = ['standard', 'file', 'lsp', 'bm25', 'dense'] as const;
export type ContextModeName = (typeof CONTEXT_MODE_NAMES)[number];
export const PROVIDER_SETTINGS = ['baseline', 'anthropic', 'openai', 'openai-compatible', 'replay', 'vscode-lm'] as const;
export type ProviderSetting = (typeof PROVIDER_SETTINGS)[number];
export const EXECUTOR_KINDS = ['local', 'docker'] as const;
export const LSP_SOURCES = ['auto', 'editor', 'headless'] as const;
/** Which functions get code lenses: the benchmark's filtered set, or every function a test can call. */
export const CODE_LENS_FUNCTIONS = ['focal', 'all'] as const;

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
  lspSource: (typeof LSP_SOURCES)[number];
  executor: (typeof EXECUTOR_KINDS)[number];
  testTimeoutSeconds: number;
  /** docker executor: how long an engine that accepts connections may take to answer (slow is not absent). */
  engineTimeoutSeconds: number;
  /** A build (the project's first build, a test's compile) is stopped when it prints nothing for this long. */
  buildSilenceSeconds: number;
  /** The most a build may take however much it prints; what a stopped first build built is kept. */
  buildMinutes: number;
  memoryMb: number;
  /** Mutation testing of a passing test with every scoring (off: "Check with mutants" on the lens runs it for one test). */
  mutation: boolean;
  /** Flaky detection: a passing test runs this many more times, each in a fresh sandbox (0: none). */
  reruns: number;
  /**
   * "Improve" (lens and Testing view): rounds asking the model for more tests aimed at what a passing
   * test leaves uncovered (and the mutants it misses); a new test is kept only when it adds something.
   */
  improveRounds: number;
  /** Seconds one provider request may take before it is abandoned (and retried). */
  requestTimeoutSeconds: number;
  /** Retries of a failed or timed-out provider request, after the first attempt. */
  requestRetries: number;
  /** mode dense: an OpenAI-compatible embeddings endpoint (its key, if any, travels in `Credentials`). */
  embeddingBaseUrl: string;
  embeddingModel: string;
  /** Lenses on the benchmark's filtered functions ("focal"), or on every testable function ("all"). */
  codeLensFunctions: (typeof CODE_LENS_FUNCTIONS)[number];
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
  engineTimeoutSeconds: 30,
  buildSilenceSeconds: 300,
  buildMinutes: 60,
  memoryMb: 2048,
  mutation: false,
  reruns: 2,
  improveRounds: 2,
  requestTimeoutSeconds: 300,
  requestRetries: 3,
  embeddingBaseUrl: '',
  embeddingModel: '',
  codeLensFunctions: 'focal',
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

/** Every setting, each of its type: a setting added to EngineSettings and not here fails the typecheck. */
export const ENGINE_SETTINGS_SCHEMA: JSONSchemaType<EngineSettings> = {
  type: 'object',
  required: ['minLines', 'maxLines', 'provider', 'model', 'baseUrl', 'replayFile', 'mode', 'lspSource', 'executor', 'testTimeoutSeconds', 'engineTimeoutSeconds', 'buildSilenceSeconds', 'buildMinutes', 'memoryMb', 'mutation', 'reruns', 'improveRounds', 'requestTimeoutSeconds', 'requestRetries', 'embeddingBaseUrl', 'embeddingModel', 'codeLensFunctions'],
  properties: {
    minLines: int,
    maxLines: int,
    provider: literal(PROVIDER_SETTINGS),
    model: str,
    baseUrl: str,
    replayFile: str,
    mode: literal(CONTEXT_MODE_NAMES),
    lspSource: literal(LSP_SOURCES),
    executor: literal(EXECUTOR_KINDS),
    testTimeoutSeconds: num,
    engineTimeoutSeconds: num,
    buildSilenceSeconds: num,
    buildMinutes: num,
    memoryMb: num,
    mutation: bool,
    reruns: int,
    improveRounds: int,
    requestTimeoutSeconds: num,
    requestRetries: num,
    embeddingBaseUrl: str,
    embeddingModel: str,
    codeLensFunctions: literal(CODE_LENS_FUNCTIONS),
  },
};

/** The properties of WithSettings, to spread into a request's own (`settings` goes in its `required`). */
export const withSettingsProperties = {
  settings: ENGINE_SETTINGS_SCHEMA,
  credentials: optional<JSONSchemaType<Credentials>>({ type: 'object', required: [], properties: { apiKey: optional(str), embeddingApiKey: optional(str) } }),
};

/**
 * What this machine can run (executors, images, language servers) and what to install. `languages`
 * covers every language; `text` is the report in a user's words, scoped to the open workspace's
 * languages (`workspaceLanguages`, found by the server in the workspace folders) and to the executor
 * asked for (default: the server's setting).
 */
export interface CheckEnvironmentParams {
  executor?: string;
}
export type CheckEnvironmentResult = WireEnvironmentReport & { text: string; executor: string; workspaceLanguages: string[] };
export const CHECK_ENVIRONMENT = new ClientRequest<CheckEnvironmentParams, CheckEnvironmentResult>('xrepotest/checkEnvironment', {
  type: 'object',
  required: [],
  properties: { executor: optional(str) },
});

/**
 * "Check this project" (`xrepotest doctor --repo` in the editor): whether a workspace folder's own code
 * builds here with the executor, untouched, and what is missing. Long: sent with a work-done token.
 */
export interface CheckProjectParams {
  /** A workspace folder (absolute path); anything else is refused. */
  folder: string;
  executor?: string;
}
export interface CheckProjectResult {
  /** The check as the command line prints it. */
  text: string;
  /** Each problem's cause and fix, in the editor's words. */
  problems: Array<{ cause: string; fix: string }>;
}
export const CHECK_PROJECT = new ClientRequest<CheckProjectParams, CheckProjectResult>('xrepotest/checkProject', {
  type: 'object',
  required: ['folder'],
  properties: { folder: str, executor: optional(str) },
});

/** The client's settings changed (the filters change which functions get lenses). */
export const SETTINGS_CHANGED = new ClientNotification<EngineSettings>('xrepotest/settingsChanged', ENGINE_SETTINGS_SCHEMA);
