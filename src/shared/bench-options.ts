/**
 * The pure parts of "Run a benchmark…" (no `vscode`, no engine code): the options object the command
 * takes from automation, the default run folder, the bundled example dataset, the progress line.
 */
import * as path from 'node:path';
import { CONTEXT_MODE_NAMES, EXECUTOR_KINDS, PROVIDER_SETTINGS, type ContextModeName, type EngineSettings, type ProviderSetting } from './protocol';

/**
 * The languages a benchmark may be limited to (`lang`), known before any server answer. The
 * engine's registry (src/engine/languages/ids.ts) cannot be imported here; test/unit/language-lists.test.ts
 * checks this list against it. Providers, modes and executors are protocol.ts's lists.
 */
export const LANGUAGES = ['rust', 'go', 'php', 'ruby', 'julia'] as const;
export const DEFAULT_BENCH_CONCURRENCY = 2;

/** A JSONL file of tasks and where their repositories are checked out. */
export interface TasksFileChoice {
  tasks: string;
  manifest?: string;
  repos?: string;
}

/**
 * `xrepotest.runBenchmark`'s one argument (automation, tests): given, the pickers are skipped; what is
 * left out comes from the settings (provider, model, mode, executor) or the defaults.
 */
export interface BenchCommandArgs {
  dataset: 'example' | 'workspace' | TasksFileChoice;
  provider?: ProviderSetting;
  model?: string;
  mode?: ContextModeName;
  executor?: EngineSettings['executor'];
  limit?: number;
  /** Comma-separated languages. */
  lang?: string;
  /** Default: a new folder under the extension's global storage. */
  runDir?: string;
  concurrency?: number;
  /** Open the report panel and the annotator when the run ends (default true). */
  open?: boolean;
}

/** Thrown for an options object the command cannot use; the message says what to pass instead. */
export class BenchArgsError extends Error {}

function oneOf<T extends string>(name: string, value: unknown, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw new BenchArgsError(`${name} ${JSON.stringify(value)}: use one of ${allowed.join(', ')}`);
  }
  return value as T;
}

function positiveInt(name: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw new BenchArgsError(`${name} ${JSON.stringify(value)}: use a whole number, 1 or more`);
  return value;
}

function optionalString(name: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !value) throw new BenchArgsError(`${name}: use a non-empty string`);
  return value;
}

function absolutePath(name: string, value: unknown): string | undefined {
  const s = optionalString(name, value);
  if (s !== undefined && !path.isAbsolute(s)) throw new BenchArgsError(`${name} ${s}: use an absolute path`);
  return s;
}

/** Checks the command's options object; unknown keys are refused so a typo does not go unnoticed. */
export function validateBenchArgs(value: unknown): BenchCommandArgs {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new BenchArgsError('pass an options object such as {"dataset": "example"}');
  const o = value as Record<string, unknown>;
  const known = ['dataset', 'provider', 'model', 'mode', 'executor', 'limit', 'lang', 'runDir', 'concurrency', 'open'];
  const unknown = Object.keys(o).filter((k) => !known.includes(k));
  if (unknown.length) throw new BenchArgsError(`unknown option(s) ${unknown.join(', ')}: the options are ${known.join(', ')}`);

  let dataset: BenchCommandArgs['dataset'];
  if (o.dataset === 'example' || o.dataset === 'workspace') dataset = o.dataset;
  else if (o.dataset && typeof o.dataset === 'object' && !Array.isArray(o.dataset)) {
    const d = o.dataset as Record<string, unknown>;
    const tasks = absolutePath('dataset.tasks', d.tasks);
    if (!tasks) throw new BenchArgsError('dataset.tasks: give the absolute path of a JSONL file of tasks');
    dataset = { tasks, manifest: absolutePath('dataset.manifest', d.manifest), repos: absolutePath('dataset.repos', d.repos) };
    if (dataset.manifest && dataset.repos) throw new BenchArgsError('dataset: give a manifest or a repos folder, not both');
  } else throw new BenchArgsError('dataset: use "example", "workspace" or {"tasks": "/abs/tasks.jsonl", "manifest"?: …, "repos"?: …}');

  const lang = optionalString('lang', o.lang);
  for (const l of lang?.split(',') ?? []) oneOf('lang', l.trim(), LANGUAGES);
  if (o.open !== undefined && typeof o.open !== 'boolean') throw new BenchArgsError('open: use true or false');
  return {
    dataset,
    provider: oneOf('provider', o.provider, PROVIDER_SETTINGS),
    model: optionalString('model', o.model),
    mode: oneOf('mode', o.mode, CONTEXT_MODE_NAMES),
    executor: oneOf('executor', o.executor, EXECUTOR_KINDS),
    limit: positiveInt('limit', o.limit),
    lang,
    runDir: absolutePath('runDir', o.runDir),
    concurrency: positiveInt('concurrency', o.concurrency),
    open: o.open as boolean | undefined,
  };
}

const pad = (n: number): string => String(n).padStart(2, '0');

/** `2025-01-31-140209-baseline-standard`: sorts by time, says what ran; local time, as the user reads it. */
export function runFolderName(date: Date, provider: string, mode: string): string {
  const stamp = `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}-${pad(date.getHours())}${pad(date.getMinutes())}${pad(date.getSeconds())}`;
  const safe = (s: string): string => s.replace(/[^A-Za-z0-9._-]+/g, '_');
  return `${stamp}-${safe(provider)}-${safe(mode)}`;
}

/** A folder under `parent` that does not exist yet: `name`, else `name-2`, `name-3`, … */
export function newRunFolder(parent: string, name: string, exists: (p: string) => boolean): string {
  let candidate = path.join(parent, name);
  for (let i = 2; exists(candidate); i++) candidate = path.join(parent, `${name}-${i}`);
  return candidate;
}

/**
 * The example dataset bundled with the extension: the packaged copy (dist/example, its repositories
 * inside it) when there is one, else the repository's own examples/fixtures (a development checkout).
 */
export function exampleDataset(extensionRoot: string, exists: (p: string) => boolean): TasksFileChoice | undefined {
  for (const dir of [path.join(extensionRoot, 'dist', 'example'), path.join(extensionRoot, 'examples', 'fixtures')]) {
    const tasks = path.join(dir, 'tasks.jsonl');
    const manifest = path.join(dir, 'manifest.json');
    if (exists(tasks) && exists(manifest)) return { tasks, manifest };
  }
  return undefined;
}

export function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  return s >= 3600 ? `${Math.floor(s / 3600)}h${pad(Math.floor((s % 3600) / 60))}m` : s >= 60 ? `${Math.floor(s / 60)}m${pad(s % 60)}s` : `${s}s`;
}
