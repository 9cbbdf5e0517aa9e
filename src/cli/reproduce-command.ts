import * as fs from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline/promises';
import { releasePath } from '../engine/dataset/files';
import { connectEngine } from '../engine/execute/docker-engine';
import { missingTools, publishedCheckout, resolvePublishedImage } from '../engine/execute/published-images';
import { priceOf } from '../engine/generate/providers/pricing';
import { PAPER_PARAMS } from '../engine/generate/types';
import { LANGUAGE_IDS, type LanguageId } from '../engine/parse/grammars';
import { buildPrompt } from '../engine/prompt/templates';
import { formatProblem } from '../engine/tasks/jsonl';
import { loadTasks, type LoadedTask } from '../engine/tasks/load';
import type { Manifest } from '../engine/tasks/manifest';
import { forTerminal } from '../engine/util/terminal';
import { runBenchCommand } from './bench-command';
import { acquireRunLock } from '../engine/store/run-lock';
import { repositoryFolderOf } from '../engine/tasks/task-path';

/**
 * Seconds one task spends being compiled, run and scored in a container, and waiting for a reply.
 * Execution: test/unit/reproduce.test.ts (pull from a loopback registry, copy-out, two Go fixture
 * tasks, then a resumed rerun) takes about 18 s in all on this project's machine (Podman), i.e. a
 * few seconds per task; real repositories compile far more, so 20 s is stated. Generation: a reply of ~1,000 tokens at a typical 50–100
 * tokens/s. A rough figure, stated so the estimate can be checked, not a measurement of your setup.
 */
export const SECONDS_PER_TASK = { execute: 20, generate: 20 } as const;

/**
 * Output tokens assumed per reply: a test file of 60–120 lines. The paper caps replies at 4096
 * tokens, so 4096 is the worst case, also shown.
 */
export const OUTPUT_TOKENS_PER_TASK = 1000;

/** Prompt characters per token: the usual rule of thumb for code and English with these tokenizers. */
const CHARS_PER_TOKEN = 4;

export interface ReproduceOptions {
  provider: string;
  model?: string;
  baseUrl?: string;
  replay?: string;
  lang?: LanguageId[];
  datasetDir: string;
  runDir?: string;
  registry?: string;
  tag: string;
  imagesLock: string;
  limit?: number;
  yes?: boolean;
  concurrency: number;
  cacheDir: string;
  cache: boolean;
  progress: boolean;
  /** Seconds one provider request may take, and its retries (`--request-timeout`, `--retries`). */
  requestTimeout?: number;
  retries?: number;
  /** Run the tasks on workers through this queue (docs/distributed.md): the images are their source. */
  queue?: string;
  /** With queue: the run key shared with the workers (else XREPOTEST_RUN_KEY). */
  runKeyFile?: string;
  rateLimit?: string;
}

export interface Estimate {
  tasks: number;
  inputTokens: number;
  outputTokens: number;
  seconds: number;
  /** US dollars at the expected output, and with every reply at the 4096-token cap; null: the model has no price. */
  costUsd: number | null;
  worstCostUsd: number | null;
}

/** Time and money for the standard setting: prompts are built for real (standard needs no context), replies assumed. */
export function estimateRun(tasks: readonly LoadedTask[], model: string, concurrency: number, offline: boolean): Estimate {
  const inputTokens = tasks.reduce((n, t) => {
    const p = buildPrompt(t.task, t.language, 'standard', {});
    return n + Math.ceil((p.system.length + p.user.length) / CHARS_PER_TOKEN);
  }, 0);
  const outputTokens = tasks.length * OUTPUT_TOKENS_PER_TASK;
  const perTask = SECONDS_PER_TASK.execute + (offline ? 0 : SECONDS_PER_TASK.generate);
  const price = offline ? { input: 0, output: 0 } : priceOf(model);
  const cost = (out: number): number | null => (price ? (inputTokens * price.input + out * price.output) / 1_000_000 : null);
  return {
    tasks: tasks.length,
    inputTokens,
    outputTokens,
    seconds: (tasks.length * perTask) / Math.max(1, concurrency),
    costUsd: cost(outputTokens),
    worstCostUsd: cost(tasks.length * PAPER_PARAMS.maxTokens),
  };
}

function hours(seconds: number): string {
  const m = Math.round(seconds / 60);
  return m < 60 ? `${m} min` : `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`;
}

const usd = (n: number | null): string => (n === null ? 'unknown' : `$${n.toFixed(2)}`);

/** The base files the standard setting reads; a missing one is an error naming the command that fetches it. */
function baseFiles(datasetDir: string, languages: readonly LanguageId[]): string[] {
  const files = languages.map((l) => path.join(datasetDir, releasePath(l, 'base')));
  const missing = languages.filter((_, i) => !fs.existsSync(files[i]));
  if (missing.length) {
    throw new Error(
      `the published base files are not in ${datasetDir} (${missing.map((l) => releasePath(l, 'base')).join(', ')} missing): ` +
        `run \`xrepotest dataset fetch --dir ${datasetDir} --lang ${missing.join(',')} --kinds base\` first`,
    );
  }
  return files;
}

/** The same selection `runBenchCommand` makes (language filter, then the first n), so the counts said up front are the ones run. */
function selectTasks(tasks: readonly LoadedTask[], languages: readonly LanguageId[], limit?: number): LoadedTask[] {
  const selected = tasks.filter((t) => languages.includes(t.language));
  return limit ? selected.slice(0, limit) : selected;
}

async function confirm(question: string): Promise<boolean> {
  const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

/**
 * The paper's standard setting (1 sample, temperature 0, 4096 tokens, no repair) over the published
 * base files, each language in its published image pinned by digest, resumable in the run folder.
 */
export async function runReproduce(opts: ReproduceOptions, signal: AbortSignal): Promise<number> {
  if (opts.provider !== 'replay' && opts.provider !== 'baseline' && !opts.model) throw new Error(`--provider ${opts.provider} needs --model`);
  // Asked before anything is pulled: a run that cannot ask must be told to proceed.
  if (!opts.yes && !process.stdin.isTTY) throw new Error('standard input is not a terminal, so the run cannot be confirmed: pass --yes to start without asking');
  // Without --lang, the languages fetched; with it, each one asked for must be there.
  const present = LANGUAGE_IDS.filter((l) => fs.existsSync(path.join(opts.datasetDir, releasePath(l, 'base'))));
  const languages = opts.lang ?? (present.length ? present : [...LANGUAGE_IDS]);
  const files = baseFiles(opts.datasetDir, languages);
  const absent = LANGUAGE_IDS.filter((l) => !present.includes(l));
  if (!opts.lang && absent.length) {
    process.stderr.write(`not fetched, so not run: ${absent.join(', ')} (\`xrepotest dataset fetch --dir ${opts.datasetDir} --lang ${absent.join(',')} --kinds base\` adds them)\n`);
  }
  const { tasks, problems } = await loadTasks(files);
  for (const p of problems.slice(0, 10)) process.stderr.write(`warning: ${formatProblem(p)}\n`);
  const selected = selectTasks(tasks, languages, opts.limit);
  if (!selected.length) throw new Error(`no tasks in ${files.join(', ')}`);
  const model = opts.model ?? opts.provider;
  const runDir = opts.runDir ?? path.join('xrepotest-runs', `${opts.provider}-${model.replace(/[^\w.-]+/g, '_')}-standard`);

  const byLanguage = new Map<LanguageId, LoadedTask[]>();
  for (const t of selected) byLanguage.set(t.language, [...(byLanguage.get(t.language) ?? []), t]);
  const say = (line: string): void => void process.stderr.write(`${forTerminal(line)}\n`);
  say(`reproduce: the paper's standard setting (mode standard, temperature ${PAPER_PARAMS.temperature}, ${PAPER_PARAMS.maxTokens} max tokens, 1 sample, no repair), provider ${opts.provider}${opts.model ? ` model ${opts.model}` : ''}`);
  say(`tasks: ${selected.length} (${[...byLanguage].map(([l, ts]) => `${l} ${ts.length}`).join(', ')})`);

  const { docker, engine, endpoint } = await connectEngine();
  say(`engine: ${engine} at ${endpoint}`);
  const images: Partial<Record<LanguageId, string>> = {};
  const gaps: string[] = [];
  for (const language of byLanguage.keys()) {
    const image = await resolvePublishedImage(docker, language, {
      registry: opts.registry,
      tag: opts.tag,
      lockFile: path.resolve(opts.imagesLock),
      onProgress: opts.progress ? (l) => /^pulling |@sha256:/.test(l) && say(`[${language}] ${l}`) : undefined,
    });
    images[language] = image;
    say(`image ${language}: ${image}`);
    const missing = await missingTools(docker, image, language);
    if (missing.length) gaps.push(`${language}: ${missing.join('; ')}`);
  }
  say(`images pinned in ${path.resolve(opts.imagesLock)}`);
  if (gaps.length) for (const g of gaps) say(`missing tools: ${g}`);
  else say('missing tools: none');

  const offline = opts.provider === 'replay' || opts.provider === 'baseline';
  const est = estimateRun(selected, model, opts.concurrency, offline);
  say(
    `estimate: about ${hours(est.seconds)} at concurrency ${opts.concurrency} (${offline ? SECONDS_PER_TASK.execute : SECONDS_PER_TASK.execute + SECONDS_PER_TASK.generate} s per task assumed); ` +
      `about ${est.inputTokens} input + ${est.outputTokens} output tokens (${OUTPUT_TOKENS_PER_TASK} per reply assumed), ` +
      `cost ${usd(est.costUsd)} (at most ${usd(est.worstCostUsd)} if every reply reaches ${PAPER_PARAMS.maxTokens} tokens)`,
  );
  say(`run folder: ${runDir} (rerun the same command to resume)`);
  if (!opts.yes && !(await confirm('start? [y/N] '))) {
    say('not started');
    return 1;
  }

  // The repositories as the images hold them; the manifest points each repo_dir at its copy.
  // Locked while the checkouts and the manifest are written; the bench below takes the lock itself.
  const lock = acquireRunLock(runDir, 'reproduce');
  const manifest: Manifest = { repositories: {} };
  const manifestFile = path.join(runDir, 'manifest.json');
  try {
    for (const [language, ts] of byLanguage) {
      for (const repoDir of new Set(ts.map((t) => repositoryFolderOf(t.task.file_path)))) {
        if (manifest.repositories[repoDir]) throw new Error(`${repoDir} is a repository folder of two languages; run them apart with --lang`);
        const checkout = await publishedCheckout(docker, images[language]!, language, repoDir, path.join(runDir, 'checkouts'));
        manifest.repositories[repoDir] = { checkout: path.relative(runDir, checkout), commit: null };
      }
    }
    fs.writeFileSync(manifestFile, JSON.stringify(manifest, null, 2) + '\n');
  } finally {
    lock.release();
  }

  return runBenchCommand(
    {
      dataset: files,
      manifest: manifestFile,
      lang: [...byLanguage.keys()].join(','),
      limit: opts.limit,
      samples: 1,
      repairRounds: 0,
      executor: 'docker',
      runDir,
      concurrency: opts.concurrency,
      progress: opts.progress,
      images,
      provider: opts.provider,
      model: opts.model,
      baseUrl: opts.baseUrl,
      replay: opts.replay,
      mode: 'standard',
      temperature: PAPER_PARAMS.temperature,
      maxTokens: PAPER_PARAMS.maxTokens,
      topP: PAPER_PARAMS.topP,
      cacheDir: opts.cacheDir,
      cache: opts.cache,
      requestTimeout: opts.requestTimeout,
      retries: opts.retries,
      k: 10,
      queue: opts.queue,
      rateLimit: opts.rateLimit,
      runKeyFile: opts.runKeyFile,
    },
    signal,
  );
}
