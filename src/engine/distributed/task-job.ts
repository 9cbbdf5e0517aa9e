import { createHash } from 'node:crypto';
import type { ContextMode, GenerationRecord } from '../generate/types';
import type { LanguageId } from '../languages';
import type { ResultRecord } from '../store/results';
import { checkTaskRecord, type LoadedTask } from '../tasks/load';
import type { TaskRecord } from '../tasks/record';
import { taskKey } from '../task/slot-store';
import { repositoryFolderOf } from '../tasks/task-path';

/**
 * Bumped when a job's shape changes: a worker refuses a job of another format, saying so. 2: jobs and
 * answers travel as messages signed with the run key (run-key.ts).
 */
export const JOB_FORMAT = 2;

/** BullMQ keys live under this prefix (several runs share one queue per language). */
export const QUEUE_PREFIX = 'xrepotest';

/** One queue per language: a worker takes only the languages it can run (`--languages`). */
export function queueName(language: LanguageId): string {
  return `tasks-${language}`;
}

/** Where a worker gets a task's code on its own: never the coordinator's file system. */
export type TaskSource =
  | {
      /** A repository URL at a pinned commit (fetched once per worker, cached). */
      kind: 'git';
      url: string;
      commit: string;
      /** The repository's folder inside that checkout, when it is not its root ('/'-separated). */
      subdir?: string;
    }
  | {
      /**
       * A published image pinned by digest, holding `/app/repo_data/<lang>/<repoDir>` (the release's
       * repositories, which pin no commits): read once per worker, and the tests run in it.
       */
      kind: 'image';
      image: string;
      repoDir: string;
    };

const PINNED_IMAGE = /^[a-z0-9][\w./:-]*@sha256:[0-9a-f]{64}$/;

/**
 * What defines the run's experiment for a worker: the run's settings and the generation flags that
 * are not the worker's own (its keys, cache and replay file stay on its machine).
 */
export interface JobExperiment {
  provider: string;
  model: string;
  baseUrl?: string;
  mode: ContextMode;
  temperature: number;
  maxTokens: number;
  topP: number;
  k: number;
  publishedContext?: boolean;
  embedUrl?: string;
  embedModel?: string;
  samples: number;
  repairRounds: number;
  mutation: boolean;
  executor: 'docker' | 'local';
  /** Improvement rounds after a passing test (`bench --improve-rounds`); absent: none. */
  improveRounds?: number;
  /** Flaky detection: reruns of a passing test (`bench --reruns`); absent: none. */
  reruns?: number;
  timeouts?: { compileMs?: number; buildMs?: number; testMs?: number };
  /** Model calls per period across all workers (`--rate-limit`): calls then go through the provider's queue. */
  rateLimit?: { max: number; durationMs: number };
}

export interface TaskJobData {
  format: number;
  /** The run's id (queue.json in its folder): two runs of one dataset never share a job. */
  run: string;
  task: TaskRecord;
  source: TaskSource;
  experiment: JobExperiment;
  /** Records the run folder already holds for this task (a resumed run): the worker redoes none of them. */
  known: { generations: GenerationRecord[]; results: ResultRecord[] };
}

export interface TaskJobResult {
  format: number;
  /** `host:pid` of the worker that ran it. */
  worker: string;
  /** New records only (not those of `known`). */
  generations: GenerationRecord[];
  results: ResultRecord[];
  ms: number;
}

/**
 * The job id: the slot's content key (run, task, experiment). Adding a job whose id exists is a no-op
 * in BullMQ, so enqueueing twice or resuming never duplicates work. Hex only: BullMQ ids may not hold ':'.
 */
export function jobIdOf(run: string, task: LoadedTask, experiment: JobExperiment): string {
  const h = createHash('sha256');
  // The rate limit paces the run; it is not part of what the run measures (a resume may change it).
  const { rateLimit: _pace, ...measured } = experiment;
  h.update(JSON.stringify([JOB_FORMAT, run, taskKey(task), task.task.file_content, task.task.focal_code, measured]));
  return h.digest('hex').slice(0, 40);
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const HEX_COMMIT = /^[0-9a-f]{40}$/;

/**
 * Checks a job's signed payload. Its signature says the coordinator sent it; these checks still hold a
 * holder of the run key to jobs that name a task, a bounded experiment and a source this code can use.
 */
export function checkJobData(data: unknown): { job: TaskJobData; task: LoadedTask } | { problem: string } {
  if (!isObject(data)) return { problem: 'the job holds no object' };
  if (data.format !== JOB_FORMAT) return { problem: `the job is of format ${JSON.stringify(data.format)}; this worker reads format ${JOB_FORMAT} (run the same xrepotest version as the coordinator)` };
  if (typeof data.run !== 'string' || !/^[\w-]{1,80}$/.test(data.run)) return { problem: 'the job names no run' };
  const checked = checkTaskRecord(data.task);
  if ('problem' in checked) return { problem: `the job's task: ${checked.problem}` };
  const source = data.source;
  if (!isObject(source)) return { problem: 'the job names no source for the task\'s code' };
  if (source.kind === 'image') {
    if (typeof source.image !== 'string' || !PINNED_IMAGE.test(source.image)) return { problem: 'the job\'s image is not pinned by digest (<repository>@sha256:<64 hex digits>)' };
    if (source.repoDir !== repositoryFolderOf(checked.task.file_path)) return { problem: 'the job\'s image folder is not the task\'s repository folder' };
  } else if (source.kind !== 'git') return { problem: `unknown source kind ${JSON.stringify(source.kind)}` };
  else if (typeof source.url !== 'string' || !source.url || source.url.startsWith('-')) return { problem: 'the job\'s source has no usable URL' };
  else if (typeof source.commit !== 'string' || !HEX_COMMIT.test(source.commit)) return { problem: 'the job\'s source pins no commit (40 hex digits)' };
  else if (source.subdir !== undefined && (typeof source.subdir !== 'string' || !/^[\w.-]+(\/[\w.-]+)*$/.test(source.subdir) || source.subdir.split('/').some((p) => p === '.' || p === '..'))) {
    return { problem: 'the job\'s source names a folder that is not a plain relative path' };
  }
  const e = data.experiment;
  if (!isObject(e)) return { problem: 'the job has no experiment' };
  const strings = ['provider', 'model', 'mode'] as const;
  for (const k of strings) if (typeof e[k] !== 'string') return { problem: `the job's experiment has no ${k}` };
  const counts = ['samples', 'repairRounds', 'temperature', 'maxTokens', 'topP', 'k'] as const;
  for (const k of counts) if (typeof e[k] !== 'number' || !Number.isFinite(e[k]) || (e[k] as number) < 0) return { problem: `the job's experiment has no valid ${k}` };
  if ((e.samples as number) > 100 || (e.repairRounds as number) > 20) return { problem: 'the job asks for more samples or repair rounds than a run can have (100, 20)' };
  if (e.executor !== 'docker' && e.executor !== 'local') return { problem: 'the job\'s experiment names no executor' };
  for (const [k, max] of [['improveRounds', 20], ['reruns', 10]] as const) {
    const v = e[k];
    if (v !== undefined && (!Number.isInteger(v) || (v as number) < 0 || (v as number) > max)) return { problem: `the job's ${k} is not a count from 0 to ${max}` };
  }
  if (e.rateLimit !== undefined) {
    const r = e.rateLimit as Record<string, unknown> | null;
    if (!isObject(r) || !Number.isInteger(r.max) || (r.max as number) < 1 || typeof r.durationMs !== 'number' || !(r.durationMs > 0)) return { problem: 'the job\'s rate limit is not calls per period' };
  }
  const known = data.known;
  if (!isObject(known) || !Array.isArray(known.generations) || !Array.isArray(known.results)) return { problem: 'the job\'s known records are not lists' };
  return { job: data as unknown as TaskJobData, task: { task: checked.task, language: checked.language, file: '(queue)', line: 0 } };
}

/**
 * Checks a worker's answer before the run folder takes it: every record is of this task and this
 * experiment, within the run's samples and rounds. The answer's signature says a holder of the run key
 * sent it (a worker is trusted to score: the run's operator gave it the key); this stops a mixed-up or
 * corrupted answer from landing in the wrong slot.
 */
export function checkJobResult(value: unknown, task: LoadedTask, experiment: JobExperiment): { result: TaskJobResult } | { problem: string } {
  if (!isObject(value)) return { problem: 'the worker returned no object' };
  if (value.format !== JOB_FORMAT) return { problem: `the worker answered in format ${JSON.stringify(value.format)}` };
  if (!Array.isArray(value.generations) || !Array.isArray(value.results)) return { problem: 'the worker returned no record lists' };
  const key = taskKey(task);
  const inRange = (sample: unknown, round: unknown): boolean =>
    Number.isInteger(sample) && Number.isInteger(round) && (sample as number) >= 0 && (sample as number) < experiment.samples && (round as number) >= 0 && (round as number) <= experiment.repairRounds;
  for (const g of value.generations as unknown[]) {
    if (!isObject(g)) return { problem: 'a generation is not an object' };
    if ((g.id ?? `${g.language}:${g.task_id}`) !== key) return { problem: `a generation of another task (${String(g.id ?? g.task_id)})` };
    if (!inRange(g.sample, g.round) || typeof g.test_code !== 'string') return { problem: 'a generation outside the run\'s samples and rounds' };
    if (g.provider !== experiment.provider || g.model !== experiment.model || g.mode !== experiment.mode) return { problem: 'a generation of another experiment' };
    if (g.improve !== undefined && (!Number.isInteger(g.improve) || (g.improve as number) < 1 || (g.improve as number) > (experiment.improveRounds ?? 0))) return { problem: 'a generation outside the run\'s improvement rounds' };
  }
  for (const r of value.results as unknown[]) {
    if (!isObject(r) || !isObject(r.xrt)) return { problem: 'a result is not a result record' };
    const xrt = r.xrt as Record<string, unknown>;
    if ((r.id ?? `${xrt.language}:${r.task_id}`) !== key) return { problem: `a result of another task (${String(r.id ?? r.task_id)})` };
    if (!inRange(xrt.sample, xrt.round) || typeof xrt.test_hash !== 'string') return { problem: 'a result outside the run\'s samples and rounds' };
    if (!Array.isArray(r.checks) || !Array.isArray(r.coverage_stats)) return { problem: 'a result without checks or coverage' };
    // A worker that ignored the run's rounds or reruns (an older one) would land one-shot scores as the run's.
    const passedOnce = isObject(r.checks[0]) && (r.checks[0] as Record<string, unknown>).tests === true;
    if ((experiment.improveRounds ?? 0) > 0 && passedOnce && !isObject(xrt.suite)) return { problem: 'a passing result without the run\'s improvement rounds (is the worker older than the coordinator?)' };
    if ((experiment.reruns ?? 0) > 0 && (passedOnce || xrt.failure_category === 'flaky') && !isObject(xrt.reruns)) return { problem: 'a passing result without the run\'s reruns (is the worker older than the coordinator?)' };
  }
  return { result: value as unknown as TaskJobResult };
}

/**
 * Why this worker will not call the servers a job names, or null. A job sets the provider's base URL
 * and the embedding URL, and the worker sends its own key there: a job written by someone with access
 * to Redis could otherwise collect the keys. Only the servers the worker was started with are called.
 */
export function endpointProblem(e: Pick<JobExperiment, 'baseUrl' | 'embedUrl'>, allowed: readonly string[]): string | null {
  const norm = (u: string): string => u.replace(/\/+$/, '');
  for (const [what, flag, url] of [['base URL', '--base-url', e.baseUrl], ['embedding URL', '--embed-url', e.embedUrl]] as const) {
    if (url !== undefined && !allowed.map(norm).includes(norm(url))) {
      return `the run asks for the ${what} ${JSON.stringify(url)}; this worker sends its keys only to servers it was started with (${flag} ${url})`;
    }
  }
  return null;
}
