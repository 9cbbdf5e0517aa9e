import type { LspContextSource } from '../engine/context/modes';
import {
  generationOptions,
  generationParams,
  GenerationSettingsError,
  providerFromSettings,
  type GenerationOptions,
  type GenerationSettings,
} from '../engine/generate/options';
import type { GenerationParams, Prompt, Provider } from '../engine/generate/types';
import type { LanguageId } from '../engine/languages';
import { promptSource } from '../engine/prompt/context';
import type { TaskRecord } from '../engine/tasks/record';
import type { Credentials, EngineSettings } from '../shared/protocol';
import type { EditorChatBuilder, LspContextBuilder } from './state';

/** Says what to do when the editor's settings cannot make a provider. */
export { GenerationSettingsError as SettingsError };

/** How the editor's user supplies what generation needs: settings, and commands for secrets. */
const EDITOR_HINTS: GenerationSettings['hints'] = {
  provider: '"xrepotest.provider"',
  model: 'set "xrepotest.model" in the settings',
  baseUrl: 'set "xrepotest.baseUrl" (for example http://127.0.0.1:11434/v1)',
  replayFile: 'set "xrepotest.replayFile" to a generations.jsonl',
  apiKey: 'run "XRepoTest: Set an API key" (it is kept in the editor\'s secret storage)',
  mode: '"xrepotest.mode"',
  embedding:
    'In the editor: set "xrepotest.embedding.baseUrl" and "xrepotest.embedding.model" in the settings; a key, if the endpoint wants one, with "XRepoTest: Set an API key" (embedding).',
  lsp: 'the editor bridge is not connected yet: try again once the XRepoTest server has started',
  checkout: 'open the repository as a workspace folder',
};

/** A request timeout from the settings; a missing or nonsensical value keeps the engine's default. At most a day (timers past ~24.8 days fire at once). */
function requestTimeoutMs(t: number | undefined): number | undefined {
  return typeof t === 'number' && Number.isFinite(t) && t > 0 ? Math.round(Math.min(t, 86_400) * 1000) : undefined;
}

function requestRetries(r: number | undefined): number | undefined {
  return typeof r === 'number' && Number.isInteger(r) && r >= 0 ? Math.min(r, 20) : undefined;
}

/**
 * The editor's settings and secrets as the engine's plain generation settings (the one mapping;
 * generate/options.ts does the rest). Keys come from the editor's secret storage only, never from
 * the server's environment, which the user did not choose for it.
 */
export function generationSettingsFor(
  settings: EngineSettings,
  credentials: Credentials | undefined,
  lsp?: LspContextBuilder,
  chat?: EditorChatBuilder,
): GenerationSettings {
  const lspSource: LspContextSource | undefined = lsp ? (request, signal) => lsp(request, signal, settings) : undefined;
  return {
    provider: settings.provider,
    // replay names no model: its records say `replay`.
    model: settings.model || (settings.provider === 'replay' ? 'replay' : settings.provider === 'vscode-lm' ? 'vscode-lm' : undefined),
    baseUrl: settings.baseUrl || undefined,
    replayFile: settings.replayFile || undefined,
    credentials: { from: 'settings', apiKey: credentials?.apiKey },
    requestTimeoutMs: requestTimeoutMs(settings.requestTimeoutSeconds),
    maxRetries: requestRetries(settings.requestRetries),
    mode: settings.mode,
    embedding: { baseUrl: settings.embeddingBaseUrl || undefined, model: settings.embeddingModel || undefined, apiKey: credentials?.embeddingApiKey },
    lsp: lspSource,
    hints: EDITOR_HINTS,
    // vscode-lm: the editor's chat models, `xrepotest.model` choosing which.
    ...(chat && settings.provider === 'vscode-lm' ? { editorChat: chat(settings.model) } : {}),
  };
}

/** Everything a generation needs, from the editor's settings (the provider, decoding, the mode's context, prompts). */
export function generationOptionsFor(settings: EngineSettings, credentials: Credentials | undefined, lsp?: LspContextBuilder): GenerationOptions {
  return generationOptions(generationSettingsFor(settings, credentials, lsp));
}

/** The provider the settings name, with the key from the editor's secret storage. */
export function providerFor(settings: EngineSettings, credentials: Credentials | undefined, chat?: EditorChatBuilder): Provider {
  return providerFromSettings(generationSettingsFor(settings, credentials, undefined, chat));
}

export function paramsFor(settings: EngineSettings): GenerationParams {
  return generationParams(generationSettingsFor(settings, undefined));
}

/** The prompt in the settings' mode, its context gathered here (LSP through the bridge). */
export async function promptFor(
  task: TaskRecord,
  language: LanguageId,
  repoDir: string,
  settings: EngineSettings,
  lsp: LspContextBuilder | undefined,
  signal?: AbortSignal,
  credentials?: Credentials,
): Promise<Prompt> {
  const prompts = promptSource(generationSettingsFor(settings, credentials, lsp));
  try {
    return await prompts.promptFor(task, language, repoDir, signal);
  } finally {
    await prompts.close();
  }
}
