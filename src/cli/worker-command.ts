import { spawn } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';
import { GenerateQueue } from '../engine/distributed/generate-queue';
import { startQueueWorker, unconfinedProblem, type ExperimentServices, type QueueWorker } from '../engine/distributed/worker';
import type { Provider } from '../engine/generate/types';
import { checkQueueReachable, openQueueWarning, parseQueueUrl } from '../engine/distributed/queue-url';
import { loadRunKey } from '../engine/distributed/run-key';
import { parseSourceRules } from '../engine/distributed/source-policy';
import type { JobExperiment } from '../engine/distributed/task-job';
import { connectEngine } from '../engine/execute/docker-engine';
import { ensureImage, publishedCheckout as publishedCheckoutOf } from '../engine/execute/published-images';
import type { Executor } from '../engine/execute/types';
import { LANGUAGE_IDS, parseLanguageId, type LanguageId } from '../engine/languages';
import { runMutationTesting, toResultMutation } from '../engine/mutate/run';
import { forTerminal } from '../engine/util/terminal';
import { createExecutor, environmentImages } from './executors';
import { params, promptBuilder, providerFrom, type GenerationCliOptions } from './generation-options';

export interface WorkerCommandOptions {
  queue: string;
  concurrency: number;
  executor?: string;
  languages?: string;
  cacheDir: string;
  /** The worker's own generation settings: its replay file, response cache, request limits. */
  replay?: string;
  responseCacheDir: string;
  cache: boolean;
  requestTimeout?: number;
  retries?: number;
  /** Seconds after which a task of a worker that stopped answering goes to another worker. */
  stalledAfter: number;
  /** Servers this worker's keys may go to, when a run names them (repeatable flags). */
  baseUrl?: string[];
  embedUrl?: string[];
  /** The run key shared with the coordinator (else XREPOTEST_RUN_KEY). */
  runKeyFile?: string;
  /** The sources this worker fetches (repeatable; default DEFAULT_ALLOWED_SOURCES). */
  allowSource?: string[];
  /** Run jobs' tests with the local executor even without bubblewrap. */
  unconfinedOk?: boolean;
}

function languagesOf(list: string | undefined): LanguageId[] {
  if (!list) return [...LANGUAGE_IDS];
  return list.split(',').map((l) => {
    const id = parseLanguageId(l.trim());
    if (!id) throw new Error(`--languages ${l}: use some of ${LANGUAGE_IDS.join(', ')}`);
    return id;
  });
}

/**
 * `xrepotest worker --queue redis://…`: runs benchmark tasks from a coordinator's queue on this
 * machine until stopped. Ctrl-C / SIGTERM: no new task; running ones finish (a second: they are
 * abandoned, and another worker takes them over once their lock lapses).
 */
/** Set in the worker's own session: the pid of the process that started it (and relays its signals). */
const SESSION_ENV = 'XREPOTEST_WORKER_PARENT';

/**
 * The worker proper runs in a process group of its own, started and watched by this process. Ctrl-C
 * at a terminal signals the whole foreground group: every tool a task had running (a toolchain probe,
 * git, a compiler) would die with it, and the task running "to its end" would be scored on a killed
 * tool. Here only this process gets it, and relays a stop to the worker alone.
 */
async function runInOwnSession(): Promise<number> {
  const child = spawn(process.execPath, process.argv.slice(1), { detached: true, stdio: 'inherit', env: { ...process.env, [SESSION_ENV]: String(process.pid) } });
  const relay = (): void => void (child.exitCode === null && child.kill('SIGTERM')); // the worker: first a graceful stop, then at once
  process.on('SIGINT', relay);
  process.on('SIGTERM', relay);
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? (signal ? 128 + (os.constants.signals[signal] ?? 0) : 1))));
}

/** How long the queue may take to close once no task runs; past it, its server is taken to be gone. */
export const QUEUE_CLOSE_GRACE_MS = 10_000;

/**
 * BullMQ's graceful close: running tasks finish, then the queue's connections close. Closing waits on
 * the queue's server, and a server that was stopped with the worker (`podman-compose down` stops every
 * service at once) never answers; once no task runs the close gets QUEUE_CLOSE_GRACE_MS, then the
 * worker stops without it. Resolves whether the queue closed.
 */
export async function closeQueue(worker: Pick<QueueWorker, 'close' | 'idle'>, log: (line: string) => void, graceMs = QUEUE_CLOSE_GRACE_MS): Promise<boolean> {
  const closed = worker.close(false).then(() => true, () => true);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const gaveUp = worker.idle().then(() => new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), graceMs))));
  const ok = await Promise.race([closed, gaveUp]);
  clearTimeout(timer);
  if (!ok) log(`the queue did not close within ${Math.round(graceMs / 1000)} s of the last task ending (its server stopped?): stopping without it`);
  return ok;
}

export async function runWorkerCommand(opts: WorkerCommandOptions): Promise<number> {
  // Only a terminal signals a whole process group (Ctrl-C); a service manager or a container engine
  // signals the worker's own pid, and there the worker runs in place (it is then PID 1, and must stay so).
  if (!process.env[SESSION_ENV] && process.stdin.isTTY) return runInOwnSession();
  const log = (line: string): void => void process.stderr.write(`${forTerminal(line)}\n`);
  // The parent gone (killed, its machine's session closed): stop at once; BullMQ gives the tasks to another worker.
  const parent = Number(process.env[SESSION_ENV] ?? process.ppid);
  if (process.env[SESSION_ENV]) setInterval(() => {
    if (process.ppid !== parent) {
      log('the process that started this worker is gone: stopping now (its tasks go to another worker)');
      process.exit(1);
    }
  }, 500).unref();
  // Refused before anything connects: no key, a short one, an unreadable file; a rule that is no rule.
  const runKey = loadRunKey(opts.runKeyFile, process.env, log);
  const allowedSources = parseSourceRules(opts.allowSource);
  const address = parseQueueUrl(opts.queue);
  const warning = openQueueWarning(address);
  if (warning) log(`warning: ${warning}`);
  await checkQueueReachable(address);
  const asked = languagesOf(opts.languages);
  const only = opts.executor === undefined ? undefined : opts.executor === 'docker' || opts.executor === 'local' ? opts.executor : null;
  if (only === null) throw new Error(`--executor ${opts.executor}: use docker or local`);
  const signal = new AbortController();
  const executors = new Map<string, Promise<Executor>>();
  const executor = (kind: 'docker' | 'local'): Promise<Executor> => {
    let e = executors.get(kind);
    if (!e) executors.set(kind, (e = createExecutor(kind)));
    return e;
  };
  const builders: Array<{ close(): Promise<void> }> = [];
  const services = new Map<string, ExperimentServices>();
  // The run's experiment, with this machine's own keys (environment), cache and replay file.
  const generationOptions = (e: JobExperiment): GenerationCliOptions => ({
    provider: e.provider,
    model: e.model,
    baseUrl: e.baseUrl,
    replay: opts.replay,
    mode: e.mode,
    temperature: e.temperature,
    maxTokens: e.maxTokens,
    topP: e.topP,
    k: e.k,
    publishedContext: e.publishedContext,
    embedUrl: e.embedUrl,
    embedModel: e.embedModel,
    cacheDir: opts.responseCacheDir,
    cache: opts.cache,
    requestTimeout: opts.requestTimeout,
    retries: opts.retries,
  });
  const directProviders = new Map<string, Provider>();
  const direct = (e: JobExperiment): Provider => {
    const key = JSON.stringify(e);
    let p = directProviders.get(key);
    if (!p) directProviders.set(key, (p = providerFrom(generationOptions(e), opts.concurrency)));
    return p;
  };
  // Runs with --rate-limit: every model call waits its turn in the provider's queue (any worker makes it).
  const allowedEndpoints = [...(opts.baseUrl ?? []), ...(opts.embedUrl ?? [])];
  const generate = new GenerateQueue(address, runKey, direct, Math.max(2, opts.concurrency), log, allowedEndpoints);
  const servicesFor = (e: JobExperiment): ExperimentServices => {
    const key = JSON.stringify(e);
    let s = services.get(key);
    if (s) return s;
    const g = generationOptions(e);
    const builder = promptBuilder(g, signal.signal);
    builders.push(builder);
    s = {
      provider: e.rateLimit ? generate.provider(e) : direct(e),
      params: params(g),
      promptFor: (task, checkout) => builder.promptFor(task, checkout),
      imageFor:
        e.executor === 'docker'
          ? async (checkout, language) => environmentImages(await executor('docker'), undefined)(checkout, language)
          : undefined,
      mutate: async (task, checkout, testCode, coveredLines, given) => {
        const ex = await executor(e.executor);
        const image = given ?? (e.executor === 'docker' ? await environmentImages(ex, undefined)(checkout, task.language) : undefined);
        return toResultMutation(await runMutationTesting(task.task, task.language, testCode, { executor: ex, repoDir: checkout, coveredLines, image, signal: signal.signal }));
      },
    };
    services.set(key, s);
    return s;
  };

  // Without --languages: only those this machine can run (a local run excludes the others up front;
  // here their tasks wait for a worker that can).
  const languages: LanguageId[] = [];
  for (const language of asked) {
    const why = opts.languages ? null : await (await executor(only ?? 'local')).unavailable?.(language);
    if (why) log(`not taking ${language} tasks: ${why}`);
    else languages.push(language);
  }
  if (!languages.length) throw new Error('this machine can run none of the languages: see above (or name them with --languages)');
  // A worker that may take local jobs on a machine without bubblewrap would run strangers' tests as
  // this user: it does not start unless its operator said so.
  if (only !== 'docker') {
    const unconfined = unconfinedProblem(await executor('local'));
    if (unconfined && !opts.unconfinedOk) throw new Error(`this worker takes local jobs, but ${unconfined}`);
    if (unconfined) log('warning: --unconfined-ok: jobs of the local executor run their tests with no sandbox (no bubblewrap here), as this user, with its files and network');
  }
  const name = `${os.hostname()}:${process.pid}`;
  // Tasks of the published dataset come in the published images (pulled by digest where missing).
  let engine: ReturnType<typeof connectEngine> | undefined;
  const copies = new Map<string, Promise<string>>();
  const publishedCheckout = (image: string, language: LanguageId, repoDir: string): Promise<string> => {
    // Once per process: two tasks of one repository wait for the same copy.
    const key = JSON.stringify([image, language, repoDir]);
    let p = copies.get(key);
    if (!p) {
      p = (async () => {
        const { docker } = await (engine ??= connectEngine());
        await ensureImage(docker, image, (line) => /^pulling |Pull complete|Downloaded newer/.test(line) && log(`${image}: ${line}`));
        return publishedCheckoutOf(docker, image, language, repoDir, path.join(opts.cacheDir, 'published'));
      })();
      p.catch(() => copies.delete(key)); // a failure is tried again by the next task
      copies.set(key, p);
    }
    return p;
  };
  const worker = await startQueueWorker({ address, languages, concurrency: opts.concurrency, name, cacheDir: opts.cacheDir, executor, only, servicesFor, log, stalledAfterMs: opts.stalledAfter * 1000, allowedEndpoints, publishedCheckout, runKey, allowedSources, unconfinedOk: opts.unconfinedOk });
  log(`worker ${name}: taking ${languages.join(', ')} tasks from ${address.display}, ${opts.concurrency} at a time per language; jobs signed with run key ${runKey.id}, sources ${allowedSources.map((r) => r.text).join(' ')}; Ctrl-C to stop`);

  const queueClosed = await new Promise<boolean>((resolve) => {
    let stopping = false;
    const stop = (): void => {
      if (stopping) {
        log('stopping now: running tasks are left to another worker');
        signal.abort(new Error('the worker was stopped'));
        void worker.close(true).then(() => resolve(true), () => resolve(true));
        return;
      }
      stopping = true;
      log('stopping: running tasks finish first (Ctrl-C again to leave them to another worker)');
      void closeQueue(worker, log).then(resolve);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  // The containers and services this worker started go whatever the queue did: a container engine
  // keeps a test container (`sleep infinity`) forever once its owner is gone.
  await generate.close().catch(() => undefined);
  await Promise.all(builders.map((b) => b.close().catch(() => undefined)));
  await Promise.all([...executors.values()].map((e) => e.then((x) => x.close?.(), () => undefined)));
  log(`worker ${name}: stopped after ${worker.done} tasks${worker.refused ? `, ${worker.refused} jobs refused` : ''}`);
  // The queue's client would go on reconnecting to a server that is gone, and keep the process up.
  if (!queueClosed) process.exit(0);
  return 0;
}
