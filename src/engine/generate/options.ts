import type { ContextHints, ContextSettings } from '../context/deps';
import type { ContextDeps, ContextMode } from '../context/modes';
import { promptSource, type PromptSource } from '../prompt/context';
import { baselineProvider } from './baseline';
import { editorChatProvider, type EditorChat } from './editor-chat';
import { createProvider, PROVIDER_NAMES, type ProviderName } from './providers';
import { registerSecret } from './providers/errors';
import { PAPER_PARAMS, type GenerationParams, type Provider } from './types';

/** Where tests come from: a provider, or the offline baseline (a lower bound). */
export type ProviderKind = ProviderName | 'baseline';
export const PROVIDER_KINDS: readonly ProviderKind[] = [...PROVIDER_NAMES, 'baseline'];
/** The editor's own chat models: a provider only where the engine runs inside the editor (`editorChat` given). */
export const EDITOR_CHAT_PROVIDER = 'vscode-lm';

/** How the caller's user sets each provider setting (flags, editor settings), for messages. */
export interface ProviderHints {
  /** The name of the provider choice (`--provider`). */
  provider: string;
  /** What to do to give a model (`pass --model`). */
  model: string;
  /** Used where keys and addresses come from the settings alone (`credentials.from: 'settings'`). */
  baseUrl?: string;
  replayFile?: string;
  apiKey?: string;
}

/**
 * Everything generation is set up from, as plain values: the CLI maps its flags to it, the editor's
 * server its settings and secret storage. `generationOptions` turns it into the objects.
 */
export interface GenerationSettings extends ContextSettings {
  provider: string;
  model?: string;
  baseUrl?: string;
  replayFile?: string;
  /**
   * Where keys (and default addresses) come from: the process environment (the CLI: ANTHROPIC_API_KEY…),
   * or these settings alone (the editor: its secret storage; the server's environment is not the user's choice).
   */
  credentials: { from: 'environment' } | { from: 'settings'; apiKey?: string };
  /** Response cache folder; none when unset. */
  cacheDir?: string;
  /** Provider calls in flight at once. */
  concurrency?: number;
  requestTimeoutMs?: number;
  maxRetries?: number;
  /** Temperature, max tokens, top_p; the paper's when unset. */
  decoding?: Omit<GenerationParams, 'model'>;
  hints: ContextHints & ProviderHints;
  /** Provider `vscode-lm`: the editor's chat models, given by the engine server inside the editor; absent elsewhere. */
  editorChat?: EditorChat;
}

/** What a generation needs, built from settings: the provider, decoding, the mode and what it needs, prompts. */
export interface GenerationOptions {
  provider: Provider;
  params: GenerationParams;
  mode: ContextMode;
  context: ContextDeps;
  /** Gathers each task's context and builds its prompt; `close()` stops what it started (language servers). */
  prompts: PromptSource;
}

/** The settings cannot make what they describe; the message says what to set. */
export class GenerationSettingsError extends Error {}

export function isProviderKind(value: string): value is ProviderKind {
  return (PROVIDER_KINDS as readonly string[]).includes(value);
}

/** The provider the settings describe (checked here, so the message names the caller's flag or setting). */
export function providerFromSettings(settings: GenerationSettings): Provider {
  const { provider: kind, hints } = settings;
  if (kind === EDITOR_CHAT_PROVIDER) {
    if (!settings.editorChat) throw new GenerationSettingsError(`${hints.provider} vscode-lm is the editor's own chat models: it works only inside VS Code (the XRepoTest extension); choose one of ${PROVIDER_KINDS.join(', ')} here`);
    return editorChatProvider(settings.editorChat);
  }
  if (!isProviderKind(kind)) throw new GenerationSettingsError(`${hints.provider} ${kind}: use one of ${PROVIDER_KINDS.join(', ')}`);
  if (kind === 'baseline') return baselineProvider;
  if (kind !== 'replay' && !settings.model) throw new GenerationSettingsError(`the ${kind} provider needs a model: ${hints.model}`);
  const fromSettings = settings.credentials.from === 'settings' ? settings.credentials : null;
  if (fromSettings) {
    // Nothing from the environment will fill these in: say here what to set.
    if (kind === 'openai-compatible' && !settings.baseUrl) throw new GenerationSettingsError(`the openai-compatible provider needs the server's address: ${hints.baseUrl}`);
    if (kind === 'replay' && !settings.replayFile) throw new GenerationSettingsError(`the replay provider needs recorded generations: ${hints.replayFile}`);
    if ((kind === 'anthropic' || kind === 'openai') && !fromSettings.apiKey) throw new GenerationSettingsError(`no ${kind} API key: ${hints.apiKey}`);
    if (fromSettings.apiKey) registerSecret(fromSettings.apiKey);
  }
  return createProvider({
    provider: kind,
    model: settings.model ?? 'replay',
    baseUrl: settings.baseUrl,
    apiKey: fromSettings?.apiKey,
    replayFile: settings.replayFile,
    cacheDir: settings.cacheDir,
    concurrency: settings.concurrency,
    timeoutMs: settings.requestTimeoutMs,
    maxRetries: settings.maxRetries,
    // Only what the settings gave when they are the source: no key from this process's environment.
    ...(fromSettings ? { env: {} } : {}),
  });
}

/** Decoding for the records: the baseline is labelled as such, not as a model. */
export function generationParams(settings: Pick<GenerationSettings, 'provider' | 'model' | 'decoding'>): GenerationParams {
  return { model: settings.provider === 'baseline' ? 'baseline' : (settings.model ?? ''), ...(settings.decoding ?? PAPER_PARAMS) };
}

/**
 * Generation set up from plain settings, the one way for the CLI and the editor alike: the provider
 * first (its errors come first), then the mode with what it needs, checked before any task.
 */
export function generationOptions(settings: GenerationSettings): GenerationOptions {
  const provider = providerFromSettings(settings);
  const prompts = promptSource(settings);
  return { provider, params: generationParams(settings), mode: prompts.mode, context: prompts.context, prompts };
}
