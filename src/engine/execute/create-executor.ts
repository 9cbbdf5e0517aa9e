import type { LanguageId } from '../languages/ids';
import type { EngineConnectOptions } from './engine-connection';
import type { Executor } from './types';

/** What any executor kind may be started with; a kind ignores what it has no use for. */
export interface ExecutorOptions {
  /** docker: run each language in this image instead of the language image (a published release image). */
  images?: Partial<Record<LanguageId, string>>;
  /**
   * Keep environments between slots (docker: reused containers; the default). The editor's server
   * scores one function now and then and starts none it would have to keep: false there.
   */
  reuse?: boolean;
  /** docker: how long the engine may take to answer, and who hears about the wait (else the process's defaults). */
  connect?: EngineConnectOptions;
  /** Slots do not wait for the engine's own tools to build (`Executor.toolsInBackground`): the editor's server. */
  toolsInBackground?: boolean;
}

/** One executor kind: how the CLI's `--executor` and the editor's setting describe it, and how it starts. */
export interface ExecutorKindEntry {
  /** One line for `--help` and error messages. */
  describe: string;
  /** Starts one (connects to its engine, checks its tools); rejects with a message a user can act on. */
  create(options: ExecutorOptions): Promise<Executor>;
}

/**
 * The executor kinds: the one place that lists them. A new executor is its own module implementing
 * `Executor` (types.ts, with its `capabilities`) and one entry here; the CLI, the server and the bench
 * start executors only through `createExecutor`. Each module is loaded when its kind is started, not
 * with this list: naming the kinds (the CLI's flags and help) loads neither the Docker client nor the
 * sandbox code.
 */
export const EXECUTOR_KINDS = {
  docker: {
    describe: 'containers through the Docker Engine API',
    create: async (options) => {
      const engine = options.connect ? await (await import('./docker-engine.js')).connectEngine(options.connect) : undefined;
      return (await import('./docker.js')).DockerExecutor.create({ engine, images: options.images, reuse: options.reuse });
    },
  },
  local: {
    describe: 'host toolchains in bubblewrap',
    create: async (options) => new (await import('./local.js')).LocalExecutor({ toolsInBackground: options.toolsInBackground }),
  },
} satisfies Record<string, ExecutorKindEntry>;

export type ExecutorKind = keyof typeof EXECUTOR_KINDS;

export function isExecutorKind(kind: unknown): kind is ExecutorKind {
  return typeof kind === 'string' && Object.prototype.hasOwnProperty.call(EXECUTOR_KINDS, kind);
}

/** `docker or local`: the registered kinds, for messages. */
export function executorKindList(): string {
  const kinds = Object.keys(EXECUTOR_KINDS);
  return kinds.length > 1 ? `${kinds.slice(0, -1).join(', ')} or ${kinds[kinds.length - 1]}` : kinds.join('');
}

export class UnknownExecutorError extends Error {}

/** Starts an executor of a registered kind; an unknown kind is refused naming the ones there are. */
export function createExecutor(kind: string, options: ExecutorOptions = {}): Promise<Executor> {
  if (!isExecutorKind(kind)) return Promise.reject(new UnknownExecutorError(`executor ${JSON.stringify(kind)}: use ${executorKindList()}`));
  return EXECUTOR_KINDS[kind].create(options);
}
