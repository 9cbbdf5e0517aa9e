/**
 * How connecting to a Docker Engine API waits (docker-engine.ts), kept apart from the Docker client
 * so the CLI can set it before any verb runs without loading dockerode.
 */

/**
 * How long an endpoint that accepts connections may take to answer its ping (and then its version).
 * 3 s was too short: Podman under load answered in ~6 s, and every docker run said no engine
 * answered. An absent endpoint (no socket, nothing listening) fails at once whatever the limit.
 */
export const DEFAULT_ENGINE_TIMEOUT_MS = 30_000;

/** Where the limit is set, for messages: the CLI's flag and the editor's setting. */
export const ENGINE_TIMEOUT_NAMES = '--engine-timeout <s>, or the setting xrepotest.limits.engineTimeoutSeconds';

export interface EngineConnectOptions {
  /** How long each endpoint that accepts connections may take to answer (default DEFAULT_ENGINE_TIMEOUT_MS). */
  timeoutMs?: number;
  /** Told, every few seconds, while an endpoint that accepted the connection has not answered yet. */
  onWait?: (message: string) => void;
}

let defaults: EngineConnectOptions = {};

/**
 * The process's defaults for every connection given none: the CLI's global `--engine-timeout` sets
 * them once, before its verb runs (images, run, bench, doctor, worker and reproduce all connect).
 */
export function configureEngineConnection(options: EngineConnectOptions): void {
  defaults = { ...options };
}

/** `options` completed by the process's defaults. */
export function engineConnectOptions(options: EngineConnectOptions = {}): { timeoutMs: number; onWait?: (message: string) => void } {
  const onWait = options.onWait ?? defaults.onWait;
  return { timeoutMs: options.timeoutMs ?? defaults.timeoutMs ?? DEFAULT_ENGINE_TIMEOUT_MS, ...(onWait ? { onWait } : {}) };
}
