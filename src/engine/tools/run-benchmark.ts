import { BENCHMARK_RUN_SCHEMA } from './output-schemas';
import * as path from 'node:path';
import { runBenchmark, type BenchmarkOutcome } from '../bench/run-benchmark';
import { writeWorkspaceTasks } from '../bench/workspace-tasks';
import { environmentImages } from '../execute/environment-images';
import { LANGUAGE_IDS, type LanguageId } from '../languages';
import { formatSummaryText } from '../report/summary-text';
import type { SummaryBlock } from '../report/summary';
import { repositoryNameOf } from '../tasks/task-path';
import { defineTool, optional } from './definition';
import { ToolArgumentError } from './errors';
import { configuredGeneration } from './generation';

export interface RunBenchmarkArgs {
  dataset?: string;
  repos?: string;
  languages?: LanguageId[];
  limit?: number;
  run?: string;
}

/** A summary block's rates (percent of the scored slots, METRICS.md), as an agent reads them. */
export interface BenchmarkRates {
  /** Scored slots (N); environment failures are left out of N and counted apart. */
  samples: number;
  csr: number;
  tpr: number;
  cov: number;
  ir: number;
  environmentFailures: number;
}

export interface BenchmarkRun {
  runDir: string;
  tasks: number;
  excluded: number;
  results: number;
  /** Results found in the run folder from an earlier call (a run resumes). */
  resumed: number;
  /** Cancelled: the results so far are kept; the same call resumes it. */
  interrupted: boolean;
  overall: BenchmarkRates;
  languages: Record<string, BenchmarkRates>;
  summaryText: string;
  reports: BenchmarkOutcome['reports'];
}

const RUN_NAME = '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$';

function rates(b: SummaryBlock): BenchmarkRates {
  return { samples: b.total_samples, csr: b.compiled_rate, tpr: b.test_pass_rate, cov: b.line_coverage, ir: b.invocation_rate, environmentFailures: b.environment_samples };
}

/** `my-tasks.jsonl` -> `my-tasks`; the workspace's own functions -> `workspace`. */
function defaultRunName(dataset: string | undefined): string {
  if (!dataset) return 'workspace';
  const base = path.basename(dataset).replace(/\.jsonl$/i, '').replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '');
  return base.slice(0, 64) || 'dataset';
}

/**
 * The CLI's `bench` (and the editor's "Run a benchmark…") over the workspace's focal functions or a
 * task file in it: generate with the configured provider, run each test isolated, score, report,
 * resumably, into a run folder outside the workspace. Every checkout must be inside the workspace.
 */
export const RUN_BENCHMARK = defineTool<RunBenchmarkArgs, BenchmarkRun>({
  id: 'runBenchmark',
  title: 'Run a benchmark',
  description: () =>
    "Runs the XRepoTest benchmark over the workspace's focal functions (or a task file in the workspace): for each function the configured model (or the " +
    'offline baseline) writes a test, which runs in a disposable, isolated copy and is scored. Returns CSR, TPR, Cov and IR per language and where the ' +
    'report is. Sends progress as tasks finish. Resumable: the same run name continues a cancelled run. Use limit for a quick look.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: [],
    properties: {
      dataset: optional({ type: 'string', minLength: 1, maxLength: 4096, description: "A task JSONL file inside the workspace (`xrepotest extract` writes them); default: the workspace's own focal functions." } as const),
      repos: optional({ type: 'string', minLength: 1, maxLength: 4096, description: "With dataset: a folder inside the workspace holding each repository's checkout as <folder>/<repository name>." } as const),
      languages: optional({ type: 'array', items: { type: 'string', enum: LANGUAGE_IDS }, minItems: 1, uniqueItems: true, description: 'Only these languages.' } as const),
      limit: optional({ type: 'integer', minimum: 1, maximum: 100_000, description: 'Only the first n tasks.' } as const),
      run: optional({ type: 'string', pattern: RUN_NAME, description: 'The run\'s name (letters, digits, ".", "_", "-"): the same name resumes it. Default: the dataset\'s name, or "workspace".' } as const),
    },
  },
  outputSchema: BENCHMARK_RUN_SCHEMA,
  runsCode: true,
  callsModel: true,
  async run(services, args, call) {
    const root = services.workspace.root;
    const dataset = args.dataset ? services.workspace.resolve('dataset', args.dataset, 'file').abs : undefined;
    const repos = args.repos ? services.workspace.resolve('repos', args.repos, 'folder').abs : undefined;
    if (repos && !dataset) throw new ToolArgumentError('repos: names where a dataset\'s checkouts are; pass dataset too, or neither for the workspace\'s own functions');
    const runDir = path.join(services.benchRuns, args.run ?? defaultRunName(args.dataset));
    const generation = configuredGeneration(services.generation);
    try {
      const tasks = dataset ?? (await writeWorkspaceTasks(root, runDir, services.filters, 'pass a dataset, or ask the user for lower --min-lines', call.signal, services.log));
      const outcome = await runBenchmark(
        {
          dataset: [tasks],
          repos,
          // Without repos, a record's own checkout path is used only inside the workspace; with repos too: every checkout stays inside it.
          allowCheckouts: repos ? undefined : root,
          checkoutsWithin: root,
          lang: args.languages?.join(','),
          limit: args.limit,
          runDir,
          concurrency: services.concurrency,
          settings: {
            provider: services.generation.provider,
            model: generation.params.model,
            mode: generation.mode,
            samples: 1,
            repairRounds: 0,
            params: generation.params,
            executor: services.executorKind,
            mutation: false,
          },
          timeouts: { testMs: services.limits.testMs },
        },
        {
          executor: () => services.executor(),
          provider: () => generation.provider,
          imageFor: (executor) => environmentImages(executor, undefined, services.log),
          promptBuilder: () => ({ promptFor: (bt) => generation.prompts.promptFor(bt.task.task, bt.task.language, bt.checkout, call.signal), close: async () => undefined }),
        },
        {
          log: services.log,
          signal: call.signal,
          onTaskPhase(task, phase, p) {
            if (phase === null) return;
            let repository: string;
            try {
              repository = repositoryNameOf(task.task.task);
            } catch {
              repository = path.basename(task.checkout);
            }
            call.progress?.({ done: p.tasksDone, total: p.tasksTotal, message: `${task.task.task.function_name} in ${repository}: ${phase}` });
          },
          onProgress(p) {
            const pct = (n: number): string => (p.results ? ((100 * n) / p.results).toFixed(1) : '0.0');
            call.progress?.({ done: p.tasksDone, total: p.tasksTotal, message: `${p.tasksDone} of ${p.tasksTotal} tasks; CSR ${pct(p.compiled)}% TPR ${pct(p.passed)}% Cov ${pct(p.coverageSum)}%` });
          },
        },
      );
      return {
        runDir,
        tasks: outcome.tasks,
        excluded: outcome.excluded,
        results: outcome.results.length,
        resumed: outcome.resumed,
        interrupted: outcome.interrupted,
        overall: rates(outcome.summary),
        languages: Object.fromEntries(Object.entries(outcome.summary.languages).map(([l, b]) => [l, rates(b)])),
        summaryText: formatSummaryText(outcome.summary),
        reports: outcome.reports,
      };
    } finally {
      await generation.prompts.close();
    }
  },
  text(r) {
    const head = r.interrupted
      ? `Benchmark interrupted after ${r.results} results (kept in ${r.runDir}); call again with the same run name to continue.`
      : `Benchmark done: ${r.tasks} tasks, ${r.results} results (${r.resumed} from an earlier call), ${r.excluded} excluded.`;
    const overall = `Overall: CSR ${r.overall.csr}%, TPR ${r.overall.tpr}%, Cov ${r.overall.cov}%, IR ${r.overall.ir}% over ${r.overall.samples} scored tests` +
      (r.overall.environmentFailures ? ` (${r.overall.environmentFailures} could not run here and are left out)` : '') + '.';
    return [head, overall, '', r.summaryText, '', `Report: ${r.reports.html ?? r.reports.markdown ?? 'none yet'}; results: ${path.join(r.runDir, 'results.jsonl')}`].join('\n');
  },
});
