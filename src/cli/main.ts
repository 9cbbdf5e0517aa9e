import { Command, InvalidArgumentError } from 'commander';
import { DEFAULT_MAX_FILE_BYTES, DEFAULT_PARSE_DEADLINE_MS } from '../engine/extract/extract';
import { RELEASE_FILTERS } from '../engine/extract/filters';
import { runExtract } from './extract-command';
import { runInspect } from './inspect-command';

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive whole number');
  return n;
}

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

export function buildProgram(): Command {
  const program = new Command('xrepotest')
    .description('Scored, repository-level unit-test generation for Rust, Go, Julia, PHP and Ruby (XRepoTest).')
    .showHelpAfterError()
    .exitOverride();

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
    .option('--no-progress', 'do not show progress')
    .action(async (repoDirs: string[], opts) => {
      process.exitCode = await runExtract(repoDirs, opts, interruptSignal());
    });

  program
    .command('inspect')
    .description('load task files (ours, or the published base / LSP / RAG JSONL) and report what they hold')
    .argument('<files...>', 'JSONL files, or folders of them')
    .option('--json', 'print JSON')
    .action(async (files: string[], opts: { json?: boolean }) => {
      process.exitCode = await runInspect(files, !!opts.json);
    });

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
    process.stderr.write(`xrepotest: ${err.message ?? String(e)}\n`);
    process.exitCode = (e as Error).message === 'interrupted' ? 130 : 1;
  }
}

if (require.main === module) void main(process.argv);
