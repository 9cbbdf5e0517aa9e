import { baselineProvider } from '../engine/generate/baseline';
import { createProvider } from '../engine/generate/providers';
import { registerSecret } from '../engine/generate/providers/errors';
import { PAPER_PARAMS, type GenerationParams, type Prompt, type Provider } from '../engine/generate/types';
import type { LanguageId } from '../engine/languages';
import { gatherContext } from '../engine/prompt/context';
import { buildPrompt } from '../engine/prompt/templates';
import type { TaskRecord } from '../engine/tasks/record';
import type { Credentials, EngineSettings } from '../shared/protocol';
import type { LspContextBuilder } from './state';

/** Says what to do when the editor's settings cannot make a provider. */
export class SettingsError extends Error {}

/**
 * The provider the settings name, with the key from the editor's secret storage (never from the
 * server's environment, which the user did not choose for it).
 */
export function providerFor(settings: EngineSettings, credentials: Credentials | undefined): Provider {
  if (settings.provider === 'baseline') return baselineProvider;
  if (settings.provider !== 'replay' && !settings.model) {
    throw new SettingsError(`the ${settings.provider} provider needs a model: set "xrepotest.model" in the settings`);
  }
  if (settings.provider === 'openai-compatible' && !settings.baseUrl) {
    throw new SettingsError('the openai-compatible provider needs the server\'s address: set "xrepotest.baseUrl" (for example http://127.0.0.1:11434/v1)');
  }
  if (settings.provider === 'replay' && !settings.replayFile) {
    throw new SettingsError('the replay provider needs recorded generations: set "xrepotest.replayFile" to a generations.jsonl');
  }
  if ((settings.provider === 'anthropic' || settings.provider === 'openai') && !credentials?.apiKey) {
    throw new SettingsError(`no ${settings.provider} API key: run "XRepoTest: Set an API key" (it is kept in the editor's secret storage)`);
  }
  if (credentials?.apiKey) registerSecret(credentials.apiKey);
  return createProvider({
    provider: settings.provider,
    model: settings.model || 'replay',
    baseUrl: settings.baseUrl || undefined,
    apiKey: credentials?.apiKey,
    replayFile: settings.replayFile || undefined,
    ...requestLimits(settings),
    // Only what the editor gave: a key in the server's environment is not the user's choice here.
    env: {},
  });
}

/** The request timeout and retries from the settings; a missing or nonsensical value keeps the engine's default. */
function requestLimits(settings: EngineSettings): { timeoutMs?: number; maxRetries?: number } {
  const t = settings.requestTimeoutSeconds;
  const r = settings.requestRetries;
  return {
    // At most a day: timers past ~24.8 days would fire at once.
    ...(typeof t === 'number' && Number.isFinite(t) && t > 0 ? { timeoutMs: Math.round(Math.min(t, 86_400) * 1000) } : {}),
    ...(typeof r === 'number' && Number.isInteger(r) && r >= 0 ? { maxRetries: Math.min(r, 20) } : {}),
  };
}

export function paramsFor(settings: EngineSettings): GenerationParams {
  return { model: settings.provider === 'baseline' ? 'baseline' : settings.model || settings.provider, ...PAPER_PARAMS };
}

/** The prompt in the settings' mode, its context gathered here (LSP through the bridge). */
export async function promptFor(
  task: TaskRecord,
  language: LanguageId,
  repoDir: string,
  settings: EngineSettings,
  lsp: LspContextBuilder | undefined,
  signal?: AbortSignal,
): Promise<Prompt> {
  const context = await gatherContext({ task, language, repoDir }, settings.mode, {
    signal,
    lsp: lsp ? (request) => lsp(request, signal, settings) : undefined,
  });
  return buildPrompt(task, language, settings.mode, context);
}
