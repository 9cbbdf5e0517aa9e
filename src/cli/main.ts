import { Command } from 'commander';
import { executorKindList, isExecutorKind } from '../engine/execute/create-executor';
import { configureEngineConnection, DEFAULT_ENGINE_TIMEOUT_MS } from '../engine/execute/engine-connection';
import { DEFAULT_TIMEOUTS } from '../engine/execute/toolchain';
import { RELEASE_FILTERS } from '../engine/extract/filters';
import { DEFAULT_MAX_FILE_BYTES, DEFAULT_PARSE_DEADLINE_MS } from '../engine/extract/limits';
import { forTerminal } from '../engine/util/terminal';
import { registerAnnotationsCommand } from './commands/annotations';
import { registerDatasetCommand } from './commands/dataset';
import { registerImagesCommand } from './commands/images';
import { registerMcpCommand } from './commands/mcp';
import { registerQueueCommand } from './commands/queue';
import { registerReportCommand } from './commands/report';
import { registerReproduceCommand } from './commands/reproduce';
import { registerWorkerCommand } from './commands/worker';
import { DEFAULT_CONCURRENCY, nonNegativeInt, positiveInt } from './flags';
import { addContextOptions, addGenerationOptions } from './generation-flags';

/**
 * The `xrepotest` command: every verb's flags and help, declared here (and in commands/), and the
 * verb's own module loaded only inside its action (`await import()`), so `--help` and each verb load
 * what they use and no more: esbuild.mjs bundles the CLI as ES module chunks, one per lazily loaded
 * module graph. test/unit/cli-start.test.ts keeps the engine's heavy parts out of this module's
 * static imports.
 */

/** Ctrl-C aborts the running command between files; a second Ctrl-C exits at once. */
function interruptSignal(): AbortSignal {
  const controller = new AbortController();
  process.once('SIGINT', () => {
    process.stderr.write('\ninterrupted: stopping (press Ctrl-C again to quit at once)\n');
    controller.abort(new Error('interrupted'));
    process.once('SIGINT', () => process.exit(130));
  });
  return controller.signal;
}

/** A build (warm-up, compile) is limited by its progress and by its total time (execute/toolchain.ts). */
const BUILD_SILENCE_HELP = 'seconds a build (the warm-up, a compile) may go without printing progress before it is stopped as stalled';
const BUILD_TOTAL_HELP = 'seconds a build may take in all, however much it prints (what a stopped warm-up built is kept; the next run continues it)';

export function buildProgram(): Command {
  const program = new Command('xrepotest')
    .description('Scored, repository-level unit-test generation for Rust, Go, Julia, PHP and Ruby (XRepoTest).')
    .showHelpAfterError()
    .exitOverride()
    // Every verb that reaches a container engine (run, bench, generate, images, doctor, worker, reproduce)
    // connects through docker-engine.ts: one flag, accepted before or after the verb, sets its wait.
    .option('--engine-timeout <s>', 'seconds a Docker Engine API that accepts connections may take to answer before it is given up as slow (an absent one fails at once)', positiveInt, DEFAULT_ENGINE_TIMEOUT_MS / 1000)
    .hook('preAction', (command) => {
      configureEngineConnection({ timeoutMs: (command.opts() as { engineTimeout: number }).engineTimeout * 1000, onWait: (m) => void process.stderr.write(`xrepotest: ${m}\n`) });
    });

  program
    .command('extract')
    .description('find focal functions in repositories, with the XRepoTest filters, and write them as tasks (JSONL)')
    .argument('<repo-dirs...>', 'repository checkouts; each is one repository')
    .option('--lang <list>', 'only these languages, comma-separated (rust,go,php,ruby,julia)')
    .option('--out <file>', 'write tasks here (default: standard output)')
    .option('--summary <file>', 'also write the summary (counts per rule) as JSON')
    .option('--min-lines <n>', 'fewest non-comment lines', positiveInt, RELEASE_FILTERS.minLines)
    .option('--max-lines <n>', 'most non-comment lines', positiveInt, RELEASE_FILTERS.maxLines)
    .option('--lines <lang=min-max>', 'line bounds for one language, e.g. ruby=10-50 (repeatable)', (v: string, all: string[]) => [...all, v], [] as string[])
    .option('--max-file-bytes <n>', 'skip larger source files', positiveInt, DEFAULT_MAX_FILE_BYTES)
    .option('--parse-deadline-ms <n>', 'skip a file whose parse takes longer (Julia)', positiveInt, DEFAULT_PARSE_DEADLINE_MS)
    .option('--changed-since <ref>', 'only functions whose lines changed since this git ref (committed since, staged, unstaged or new files): tests for what changed')
    .option('--no-progress', 'do not show progress')
    .action(async (repoDirs: string[], opts) => {
      const { runExtract } = await import('./extract-command.js');
      process.exitCode = await runExtract(repoDirs, opts, interruptSignal());
    });

  program
    .command('inspect')
    .description("load task files (ours, or the published base / LSP / RAG JSONL) and report what they hold; the release's detailed_results.jsonl is also said as results, its summary.json as its keys")
    .argument('<files...>', "JSONL files, or folders of them; the release's summary.json files")
    .option('--json', 'print JSON')
    .action(async (files: string[], opts: { json?: boolean }) => {
      const { runInspect } = await import('./inspect-command.js');
      process.exitCode = await runInspect(files, !!opts.json);
    });

  program
    .command('run')
    .description('run generated tests against their focal functions in disposable copies, and score them')
    .argument('<tasks...>', 'task files (JSONL), or folders of them')
    .requiredOption('--tests <file>', 'generations: {task_id | id, language?, test_code} per line, or the release\'s processed.jsonl', (v: string, all: string[]) => [...all, v], [] as string[])
    .option('--executor <kind>', 'docker (containers through the Docker Engine API) or local (host toolchains in bubblewrap)', 'docker')
    .option('--out <file>', 'write results here as they finish (default: standard output at the end)')
    .option('--repos <dir>', 'where checkouts live: <dir>/<repository folder>')
    .option('--allow-checkouts <dir>', 'without --repos/--manifest: use the checkout a task record names (repository.path/url), only if it lies inside <dir>')
    .option('--image <name>', 'docker: run in this image instead of the language image')
    .option('--concurrency <n>', 'tasks at once', positiveInt, DEFAULT_CONCURRENCY)
    .option('--compile-timeout <s>', BUILD_SILENCE_HELP, positiveInt, DEFAULT_TIMEOUTS.compileMs / 1000)
    .option('--build-timeout <s>', BUILD_TOTAL_HELP, positiveInt, DEFAULT_TIMEOUTS.buildMs / 1000)
    .option('--test-timeout <s>', 'seconds for the test phase', positiveInt, 300)
    .option('--memory-mb <n>', 'memory limit per task', positiveInt, 2048)
    .option('--keep-sandboxes', 'keep each disposable copy (its path is in the result) for inspection')
    .option('--reruns <k>', 'flaky detection: run each passing test k more times, each in a fresh sandbox; any run that fails marks it flaky (not a pass, its pass count kept)', nonNegativeInt, 0)
    .option('--regression-check', 'for tasks from `extract --changed-since`: run each passing test again at the base commit; one that fails there is change-revealing')
    .option('--no-progress', 'do not show progress')
    .action(async (tasks: string[], opts) => {
      if (!isExecutorKind(opts.executor)) throw new Error(`--executor ${opts.executor}: use ${executorKindList()}`);
      const { runRun } = await import('./run-command.js');
      process.exitCode = await runRun(tasks, opts, interruptSignal());
    });

  registerReportCommand(program);

  addContextOptions(
    program
      .command('prompt')
      .description('print exactly what would be sent for tasks: the system prompt and the user prompt with its context')
      .argument('<tasks...>', 'task files (JSONL), or folders of them')
      .option('--id <id>', 'only the task with this stable id')
      .option('--task-id <n>', 'only tasks with this task_id')
      .option('--language <lang>', 'only tasks of this language')
      .option('--repos <dir>', 'where checkouts live: <dir>/<repository folder> (lsp, bm25, dense)')
      .option('--allow-checkouts <dir>', 'without --repos/--manifest: use the checkout a task record names (repository.path/url), only if it lies inside <dir>')
      .option('--json', 'one JSON object per task'),
  ).action(async (tasks: string[], opts) => {
    const { runPrompt } = await import('./prompt-command.js');
    process.exitCode = await runPrompt(tasks, opts, interruptSignal());
  });

  addGenerationOptions(
    program
      .command('generate')
      .description('generate tests for tasks with a provider (and repair failing ones), writing generations JSONL for `run`')
      .argument('<tasks...>', 'task files (JSONL), or folders of them')
      .requiredOption('--out <file>', 'generations JSONL (appended as they come)')
      .option('--samples <n>', 'tests per task (the paper: 1)', positiveInt, 1)
      .option('--repair-rounds <r>', 'rounds feeding compile/run errors back to the model (the paper\'s repair study: 1)', nonNegativeInt, 0)
      .option('--improve-rounds <n>', 'after a passing test, rounds asking for more tests aimed at its uncovered lines; every reply is written (replay them with `bench --provider replay --improve-rounds n`)', nonNegativeInt, 0)
      .option('--executor <kind>', 'where repair and improvement rounds run the tests: docker or local', 'docker')
      .option('--repos <dir>', 'where checkouts live: <dir>/<repository folder>')
      .option('--allow-checkouts <dir>', 'without --repos/--manifest: use the checkout a task record names (repository.path/url), only if it lies inside <dir>')
      .option('--concurrency <n>', 'tasks at once', positiveInt, 4)
      .option('--no-progress', 'do not show progress'),
  ).action(async (tasks: string[], opts) => {
    const { runGenerate } = await import('./generate-command.js');
    process.exitCode = await runGenerate(tasks, opts, interruptSignal());
  });

  addGenerationOptions(
    program
      .command('bench')
      .description('generate, run and score a whole dataset, resumably, into a run folder')
      .requiredOption('--dataset <path>', 'task JSONL file or folder of them (ours, or the published files); repeatable', (v: string, all: string[]) => [...all, v], [] as string[])
      .requiredOption('--run-dir <dir>', 'the run folder: run.json, generations.jsonl, results.jsonl, summary.json; rerun to resume')
      .option('--manifest <file>', 'where each repository is checked out, and at which commit (tasks not matching their checkout are excluded)')
      .option('--repos <dir>', 'where checkouts live: <dir>/<repository folder>')
      .option('--allow-checkouts <dir>', 'without --repos/--manifest: use the checkout a task record names (repository.path/url), only if it lies inside <dir>')
      .option('--lang <list>', 'only these languages')
      .option('--limit <n>', 'only the first n tasks', positiveInt)
      .option('--samples <n>', 'tests per task (the paper: 1)', positiveInt, 1)
      .option('--repair-rounds <r>', 'repair rounds for failing tests', nonNegativeInt, 0)
      .option('--improve-rounds <n>', 'after a passing test, rounds asking for more tests aimed at the uncovered lines (and surviving mutants); kept tests form the slot\'s suite', nonNegativeInt, 0)
      .option('--reruns <k>', 'flaky detection: run each passing test k more times, each in a fresh sandbox; any run that fails marks it flaky (not a pass, its pass count kept)', nonNegativeInt, 0)
      .option('--executor <kind>', 'docker or local', 'docker')
      .option('--mutation', 'mutation score for passing tests (slower)')
      .option('--concurrency <n>', 'tasks at once', positiveInt, DEFAULT_CONCURRENCY)
      .option('--compile-timeout <s>', BUILD_SILENCE_HELP, positiveInt, DEFAULT_TIMEOUTS.compileMs / 1000)
      .option('--build-timeout <s>', BUILD_TOTAL_HELP, positiveInt, DEFAULT_TIMEOUTS.buildMs / 1000)
      .option('--queue <url>', 'run the tasks on workers (`xrepotest worker`) through this queue: redis://[user:password@]host:port[/db] or rediss://; this process writes the run folder')
      .option('--rate-limit <calls/period>', 'with --queue: at most this many model calls across all workers, e.g. 50/min, 2/s, 3/10s')
      .option('--sources <file>', 'with --queue: where workers fetch each repository, {"<folder>": {"url": "…", "commit": "<40 hex>"}} (else the manifest\'s or the task records\' url and commit)')
      .option('--run-key-file <file>', 'with --queue: the run key the workers share (not Redis\'s password): jobs go out signed with it, answers are taken only signed with it (default: XREPOTEST_RUN_KEY; make one with `xrepotest queue new-key`)')
      .option('--no-progress', 'do not show progress'),
  ).action(async (opts) => {
    const { runBenchCommand } = await import('./bench-command.js');
    process.exitCode = await runBenchCommand(opts, interruptSignal());
  });
  registerWorkerCommand(program, positiveInt);
  registerQueueCommand(program);

  program
    .command('doctor')
    .description('what this machine can run (local toolchains, container engine and images, language servers) and what to install; with --repo, whether a repository builds untouched here')
    .option('--json', 'print JSON')
    .option('--repo <dir>', 'check this repository checkout: its languages\' toolchains, and its own build through the executor (exit 1 on problems)')
    .option('--executor <kind>', 'with --repo: local or docker', 'local')
    .option('--lang <list>', 'with --repo: only these languages, comma-separated (default: those whose manifest is at the root)')
    .option('--developer', "without --repo: add what xrepotest's own developers need (the engine's raw messages, language servers as the repository sets them up)")
    .action(async (opts: { json?: boolean; repo?: string; executor: string; lang?: string; developer?: boolean }) => {
      if (opts.repo) {
        const { runDoctorRepo } = await import('./doctor-command.js');
        process.exitCode = await runDoctorRepo({ repo: opts.repo, executor: opts.executor, lang: opts.lang, json: !!opts.json });
        return;
      }
      const { checkEnvironment, formatEnvironment } = await import('../engine/environment.js');
      const report = await checkEnvironment();
      process.stdout.write((opts.json ? JSON.stringify(report, null, 2) : formatEnvironment(report, { developer: !!opts.developer })) + '\n');
    });

  registerImagesCommand(program);
  registerDatasetCommand(program);
  registerReproduceCommand(program);
  registerAnnotationsCommand(program);
  registerMcpCommand(program, positiveInt);

  return program;
}

export async function main(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (e) {
    const err = e as { code?: string; exitCode?: number; message?: string };
    if (err.code?.startsWith('commander.')) {
      process.exitCode = err.exitCode ?? 2;
      return;
    }
    const message = (err.message ?? String(e)).replace(/^xrepotest: /, '');
    // Messages quote servers, datasets and tests: no escape sequence of theirs reaches the terminal.
    process.stderr.write(`xrepotest: ${forTerminal(message)}\n`);
    process.exitCode = (e as Error).message === 'interrupted' ? 130 : 1;
  }
}

