import * as vscode from 'vscode';
import { DEFAULT_ENGINE_SETTINGS, type Credentials, type EngineSettings, type WithSettings } from '../shared/protocol';

/**
 * Where API keys live: the editor's secret storage, never settings or logs. One per provider, and
 * `embedding` for mode dense's endpoint ("Set an API key" offers them all).
 */
export const API_KEY_SECRETS: Record<string, string> = {
  anthropic: 'xrepotest.apiKey.anthropic',
  openai: 'xrepotest.apiKey.openai',
  'openai-compatible': 'xrepotest.apiKey.openaiCompatible',
  embedding: 'xrepotest.apiKey.embedding',
};

/** The contributed settings (package.json), read fresh for each request. */
export function engineSettings(): EngineSettings {
  const c = vscode.workspace.getConfiguration('xrepotest');
  const d = DEFAULT_ENGINE_SETTINGS;
  return {
    minLines: c.get('extract.minLines', d.minLines),
    maxLines: c.get('extract.maxLines', d.maxLines),
    provider: c.get('provider', d.provider),
    model: c.get('model', d.model),
    baseUrl: c.get('baseUrl', d.baseUrl),
    replayFile: c.get('replayFile', d.replayFile),
    mode: c.get('mode', d.mode),
    lspSource: c.get('lsp.source', d.lspSource),
    executor: c.get('executor', d.executor),
    testTimeoutSeconds: c.get('limits.testTimeoutSeconds', d.testTimeoutSeconds),
    engineTimeoutSeconds: c.get('limits.engineTimeoutSeconds', d.engineTimeoutSeconds),
    buildSilenceSeconds: c.get('limits.buildSilenceSeconds', d.buildSilenceSeconds),
    buildMinutes: c.get('limits.buildMinutes', d.buildMinutes),
    memoryMb: c.get('limits.memoryMb', d.memoryMb),
    mutation: c.get('mutation.enabled', d.mutation),
    reruns: c.get('reruns', d.reruns),
    improveRounds: c.get('improveRounds', d.improveRounds),
    requestTimeoutSeconds: c.get('requests.timeoutSeconds', d.requestTimeoutSeconds),
    requestRetries: c.get('requests.retries', d.requestRetries),
    embeddingBaseUrl: c.get('embedding.baseUrl', d.embeddingBaseUrl),
    embeddingModel: c.get('embedding.model', d.embeddingModel),
    codeLensFunctions: c.get('codeLens.functions', d.codeLensFunctions),
  };
}

/** The keys the settings need, and no others: the provider's, and the embedding endpoint's in mode dense. */
export async function credentialsFor(secrets: vscode.SecretStorage, settings: Pick<EngineSettings, 'provider' | 'mode'>): Promise<Credentials> {
  const id = API_KEY_SECRETS[settings.provider];
  const apiKey = id ? await secrets.get(id) : undefined;
  const embeddingApiKey = settings.mode === 'dense' ? await secrets.get(API_KEY_SECRETS.embedding) : undefined;
  return { ...(apiKey ? { apiKey } : {}), ...(embeddingApiKey ? { embeddingApiKey } : {}) };
}

/** The settings and the keys they need: what every engine request carries. */
export async function requestSettings(secrets: vscode.SecretStorage, overrides: Partial<EngineSettings> = {}): Promise<WithSettings> {
  const settings = { ...engineSettings(), ...overrides };
  return { settings, credentials: await credentialsFor(secrets, settings) };
}
