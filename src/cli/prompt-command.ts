import { formatProblem } from '../engine/tasks/jsonl';
import { loadTasks } from '../engine/tasks/load';
import { checkoutOf } from '../engine/tasks/manifest';
import { promptBuilder, type GenerationCliOptions } from './generation-options';

export interface PromptCommandOptions extends GenerationCliOptions {
  id?: string;
  taskId?: string;
  language?: string;
  repos?: string;
  /** --allow-checkouts: where a record's own checkout path may be used from. */
  allowCheckouts?: string;
  json?: boolean;
}

/** Prints exactly what would be sent for each selected task: the system prompt, then the user prompt. */
export async function runPrompt(files: string[], opts: PromptCommandOptions, signal: AbortSignal): Promise<number> {
  const { tasks, problems } = await loadTasks(files);
  for (const p of problems) process.stderr.write(formatProblem(p) + '\n');
  const selected = tasks.filter(
    (t) => (!opts.id || t.task.id === opts.id) && (opts.taskId === undefined || String(t.task.task_id) === opts.taskId) && (!opts.language || t.language === opts.language),
  );
  if (!selected.length) throw new Error('no task matched (--id, --task-id, --language)');
  const builder = promptBuilder(opts, signal);
  try {
    for (const t of selected) {
      const prompt = await builder.promptFor(t, checkoutOf(t, null, opts.repos, opts.allowCheckouts) ?? undefined);
      if (opts.json) process.stdout.write(JSON.stringify({ id: t.task.id, task_id: t.task.task_id, ...prompt }) + '\n');
      else process.stdout.write(`=== ${t.language} task ${t.task.task_id} ${t.task.function_name} (${t.task.file_path}), mode ${prompt.mode}\n--- system\n${prompt.system}\n--- user\n${prompt.user}\n`);
    }
  } finally {
    await builder.close();
  }
  return 0;
}
