import { formatProblem } from '../engine/tasks/jsonl';
import { loadTasks } from '../engine/tasks/load';
import { repositoryNameOf } from '../engine/tasks/task-path';
import { verifyTask, type TaskIssue } from '../engine/tasks/verify';

/** Loads task files (ours or the release's) and says what is in them and what could not be read. */
export async function runInspect(files: string[], json: boolean): Promise<number> {
  const { tasks, problems } = await loadTasks(files);
  const byLanguage: Record<string, { tasks: number; repositories: Set<string> }> = {};
  const issues: Record<TaskIssue, number> = { 'focal-code-mismatch': 0, 'lines-out-of-range': 0, 'from-test-file': 0 };
  for (const t of tasks) {
    const entry = (byLanguage[t.language] ??= { tasks: 0, repositories: new Set() });
    entry.tasks++;
    entry.repositories.add(repositoryNameOf(t.task));
    for (const issue of verifyTask(t.task, t.language)) issues[issue]++;
  }
  if (json) {
    const out = {
      tasks: tasks.length,
      languages: Object.fromEntries(Object.entries(byLanguage).map(([l, e]) => [l, { tasks: e.tasks, repositories: [...e.repositories].sort() }])),
      issues,
      problems,
    };
    process.stdout.write(JSON.stringify(out, null, 2) + '\n');
  } else {
    process.stdout.write(`${tasks.length} tasks\n`);
    for (const [lang, e] of Object.entries(byLanguage)) {
      process.stdout.write(`  ${lang.padEnd(5)} ${e.tasks} tasks from ${e.repositories.size} repositories: ${[...e.repositories].sort().join(', ')}\n`);
    }
    process.stdout.write(
      `checks: ${issues['focal-code-mismatch']} focal_code differing from lines start_line..end_line of file_content, ` +
        `${issues['lines-out-of-range']} with lines outside the file, ${issues['from-test-file']} from test files\n`,
    );
  }
  for (const p of problems) process.stderr.write(formatProblem(p) + '\n');
  if (problems.length) process.stderr.write(`${problems.length} lines could not be used (listed above); the rest loaded\n`);
  return problems.length && !tasks.length ? 1 : 0;
}
