import { Command } from 'commander';
import { registerDatasetCommand } from '../../src/cli/commands/dataset';

/* Shared by test/unit/dataset.test.ts and test/integration/dataset.test.ts. */

/** Runs the command in this process, as main.ts will once the lead wires it, capturing what it prints. */
export async function runCli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const program = new Command('xrepotest').exitOverride();
  program.configureOutput({ writeOut: (s) => void (captured.stdout += s), writeErr: (s) => void (captured.stderr += s) });
  registerDatasetCommand(program);
  const captured = { stdout: '', stderr: '' };
  const saved = { out: process.stdout.write.bind(process.stdout), err: process.stderr.write.bind(process.stderr), env: { ...process.env }, exitCode: process.exitCode };
  process.stdout.write = ((s: string) => ((captured.stdout += s), true)) as typeof process.stdout.write;
  process.stderr.write = ((s: string) => ((captured.stderr += s), true)) as typeof process.stderr.write;
  delete process.env.HF_TOKEN;
  delete process.env.HF_ENDPOINT;
  Object.assign(process.env, env);
  process.exitCode = 0;
  let code = 0;
  try {
    await program.parseAsync(args, { from: 'user' });
    code = Number(process.exitCode ?? 0);
  } catch (e) {
    const err = e as { exitCode?: number; code?: string; message: string };
    if (!err.code?.startsWith('commander.')) captured.stderr += `xrepotest: ${err.message}\n`;
    code = err.exitCode ?? 1;
  } finally {
    process.stdout.write = saved.out;
    process.stderr.write = saved.err;
    for (const k of Object.keys(process.env)) if (!(k in saved.env)) delete process.env[k];
    Object.assign(process.env, saved.env);
    process.exitCode = saved.exitCode;
  }
  return { code, ...captured };
}
