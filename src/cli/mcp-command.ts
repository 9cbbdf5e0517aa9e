import { createHash } from 'node:crypto';
import * as os from 'node:os';
import * as path from 'node:path';
import { executorKindList, isExecutorKind, type ExecutorKind } from '../engine/execute/create-executor';
import type { Executor } from '../engine/execute/types';
import { ScoringRunFolder } from '../engine/task/scoring-run-folder';
import type { ToolServices } from '../engine/tools';
import { Workspace } from '../engine/tools/workspace';
import { forTerminal } from '../engine/util/terminal';
import { createMcpServer, type InFlight } from '../mcp/server';
import { LimitedStdioTransport } from '../mcp/stdio-transport';
import { version } from '../../package.json';
import { createExecutor } from './executors';
import { generationSettings, type GenerationCliOptions } from './generation-options';

export interface McpCommandOptions extends GenerationCliOptions {
  workspace?: string;
  executor: string;
  runsDir?: string;
  testTimeout: number;
  memoryMb: number;
  minLines: number;
  maxLines: number;
  concurrency: number;
  /** The most MiB one JSON-RPC message may have; a larger one is refused with an error, and the server goes on. */
  maxMessageMb: number;
}

/** Where a workspace's scorings and benchmark runs go by default: per workspace, outside it (`$XDG_STATE_HOME/xrepotest/mcp/<name>-<hash>`). */
export function defaultRunsDir(root: string): string {
  const state = process.env.XDG_STATE_HOME || path.join(os.homedir(), '.local', 'state');
  return path.join(state, 'xrepotest', 'mcp', `${path.basename(root)}-${createHash('sha256').update(root).digest('hex').slice(0, 12)}`);
}

/** The executor of the user's choice, made on first use; a failed start is not kept (the user may start Podman and try again). */
function lazyExecutor(kind: ExecutorKind): { get(): Promise<Executor>; close(): Promise<void> } {
  let made: Promise<Executor> | undefined;
  return {
    get() {
      // No container is kept between calls (as in the editor): each run gets its own, removed after it.
      made ??= createExecutor(kind, { reuse: false });
      made.catch(() => (made = undefined));
      return made;
    },
    async close() {
      await made?.then((e) => e.close?.(), () => undefined);
    },
  };
}

/** The tools' services from the command line: everything an agent cannot choose is decided here. */
export function mcpServices(opts: McpCommandOptions & { executor: ExecutorKind }, executor: () => Promise<Executor>, log: (line: string) => void): ToolServices {
  const workspace = Workspace.open(opts.workspace ?? process.cwd());
  const runs = path.resolve(opts.runsDir ?? defaultRunsDir(workspace.root));
  // The workspace is copied into every sandbox and benchmarked whole: its own run folders would go with it.
  if (workspace.contains(runs)) throw new Error(`--runs-dir ${runs} is inside the workspace ${workspace.root}: keep scorings and benchmark runs outside it (the default is under ~/.local/state/xrepotest/mcp)`);
  if (opts.minLines > opts.maxLines) throw new Error(`--min-lines ${opts.minLines} is above --max-lines ${opts.maxLines}`);
  return {
    workspace,
    executor,
    executorKind: opts.executor,
    generation: generationSettings(opts, opts.concurrency),
    limits: { testMs: opts.testTimeout * 1000, memoryBytes: opts.memoryMb * 1024 * 1024 },
    filters: { minLines: opts.minLines, maxLines: opts.maxLines },
    scorings: new ScoringRunFolder(path.join(runs, 'scorings')),
    benchRuns: path.join(runs, 'bench'),
    concurrency: opts.concurrency,
    log,
  };
}

/**
 * Serves the tools on standard input and output until the client closes them (or a signal): then
 * the calls in flight are cancelled and awaited (their sandboxes and processes go with them) and the
 * executor is closed. Standard output carries the protocol alone: every line for people goes to
 * standard error.
 */
export async function runMcpServer(opts: McpCommandOptions): Promise<number> {
  const log = (line: string): void => void process.stderr.write(`xrepotest mcp: ${forTerminal(line)}\n`);
  const kind = opts.executor;
  if (!isExecutorKind(kind)) throw new Error(`--executor ${kind}: use ${executorKindList()}`);
  const executor = lazyExecutor(kind);
  const services = mcpServices({ ...opts, executor: kind }, () => executor.get(), log);
  const inFlight: InFlight = new Set();
  const server = createMcpServer(services, version, inFlight);
  log(`serving ${services.workspace.root} over stdio (executor ${opts.executor}, provider ${services.generation.provider}; scorings and runs in ${path.dirname(services.benchRuns)})`);
  let stopping: Promise<void> | undefined;
  const stop = (why: string): Promise<void> => {
    if (stopping) return stopping;
    log(`stopping: ${why}`);
    // Started a tick later: closing the server closes the transport, whose onclose calls stop again, and `stopping` must already be set.
    stopping = Promise.resolve().then(async () => {
      // Closing the transport aborts every call in flight; each then unwinds (sandboxes removed, processes killed).
      await server.close().catch(() => undefined);
      await Promise.race([Promise.allSettled([...inFlight]), new Promise((r) => setTimeout(r, 30_000).unref())]);
      services.scorings.close();
      await executor.close();
    });
    return stopping;
  };
  // What the transport refuses (a message over the limit, a line that is not JSON-RPC) is answered to the client and said here.
  server.onerror = (e) => log(`protocol: ${e.message}`);
  const stopped = new Promise<void>((resolve) => {
    const stopOn = (why: string) => (): void => void stop(why).then(resolve);
    process.stdin.once('end', stopOn('the client closed the connection'));
    process.once('SIGTERM', stopOn('SIGTERM'));
    process.once('SIGINT', stopOn('SIGINT'));
    // However the connection ends, the process says so and shuts down, rather than draining its event loop in silence.
    server.onclose = stopOn('the connection closed');
  });
  const maxMessageBytes = opts.maxMessageMb * 1024 * 1024;
  await server.connect(new LimitedStdioTransport({ maxMessageBytes, limitHint: `--max-message-mb ${opts.maxMessageMb}` }));
  await stopped;
  return 0;
}
