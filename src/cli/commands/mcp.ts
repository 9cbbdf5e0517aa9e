import type { Command } from 'commander';
import { DEFAULT_TIMEOUTS } from '../../engine/execute/toolchain';
import { DEFAULT_LIMITS } from '../../engine/execute/types';
import { RELEASE_FILTERS } from '../../engine/extract/filters';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../../mcp/limits';
import { DEFAULT_CONCURRENCY } from '../flags';
import { addGenerationOptions } from '../generation-flags';
import type { McpCommandOptions } from '../mcp-command';

/** `xrepotest mcp`: its flags; mcp-command.ts, loaded when it runs (with the MCP SDK), does the work. */
export function registerMcpCommand(program: Command, positiveInt: (value: string) => number): void {
  addGenerationOptions(
    program
      .command('mcp')
      .description('serve the scoring tools to agents over the Model Context Protocol on stdio: focal_functions, score_test, generate_tests, coverage, run_benchmark')
      .option('--workspace <dir>', 'the one folder the tools may read, copy into sandboxes and benchmark; paths leading outside it are refused (default: the current folder)')
      .option('--executor <kind>', 'where tests run: local (host toolchains in bubblewrap) or docker (containers)', 'local')
      .option('--runs-dir <dir>', 'where scorings and benchmark runs are kept, outside the workspace (default: $XDG_STATE_HOME or ~/.local/state, then xrepotest/mcp/<workspace>-<hash>)')
      .option('--test-timeout <s>', 'seconds for a test phase', positiveInt, DEFAULT_TIMEOUTS.testMs / 1000)
      .option('--memory-mb <n>', 'memory limit per run', positiveInt, DEFAULT_LIMITS.memoryBytes / 1024 / 1024)
      .option('--min-lines <n>', "the benchmark filter's fewest non-comment lines (focal_functions, run_benchmark)", positiveInt, RELEASE_FILTERS.minLines)
      .option('--max-lines <n>', "the benchmark filter's most non-comment lines", positiveInt, RELEASE_FILTERS.maxLines)
      .option('--concurrency <n>', 'run_benchmark: tasks at once', positiveInt, DEFAULT_CONCURRENCY)
      .option('--max-message-mb <n>', 'the most MiB one JSON-RPC message may have: a larger one is answered with an error and the server goes on', positiveInt, DEFAULT_MAX_MESSAGE_BYTES / 1024 / 1024),
  ).action(async (opts: McpCommandOptions) => {
    const { runMcpServer } = await import('../mcp-command.js');
    process.exitCode = await runMcpServer(opts);
  });
}
