import * as fs from 'node:fs';
import { loadResults } from '../engine/report/load';
import { looksLikeOurRow } from '../engine/report/our-rows';
import { looksLikeReleaseRow } from '../engine/report/release-rows';
import { readReleaseSummary, type ReleaseSummary } from '../engine/report/release-summary';
import { formatProblem, readJsonl, type JsonlProblem } from '../engine/tasks/jsonl';
import { loadTasks } from '../engine/tasks/load';
import { repositoryNameOf } from '../engine/tasks/task-path';
import { verifyTask, type TaskIssue } from '../engine/tasks/verify';

/** Whether a JSONL file holds result rows (ours, or the release's detailed_results.jsonl), by its first record. */
async function holdsResults(file: string): Promise<boolean> {
  if (!fs.existsSync(file) || fs.statSync(file).isDirectory()) return false;
  for await (const { value } of readJsonl(file, [])) return looksLikeReleaseRow(value) || looksLikeOurRow(value);
  return false;
}

/**
 * Loads task files (ours or the release's) and says what is in them and what could not be read; a
 * result file (the release's detailed_results.jsonl, or ours) is also said as results, and the
 * release's summary.json as its keys with their meaning.
 */
export async function runInspect(files: string[], json: boolean): Promise<number> {
  const summaryFiles = files.filter((f) => f.endsWith('.json'));
  const jsonlFiles = files.filter((f) => !f.endsWith('.json'));
  const { tasks, problems } = jsonlFiles.length ? await loadTasks(jsonlFiles) : { tasks: [], problems: [] as JsonlProblem[] };
  const resultFiles: string[] = [];
  for (const f of jsonlFiles) if (await holdsResults(f)) resultFiles.push(f);
  const results = resultFiles.length ? (await loadResults(resultFiles)).sources : [];
  const summaries: Array<{ file: string; summary: ReleaseSummary }> = [];
  for (const file of summaryFiles) {
    const read = readReleaseSummary(file);
    if ('problem' in read) problems.push({ file, line: 0, message: read.problem });
    else summaries.push({ file, summary: read.summary });
  }
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
      results,
      summaries,
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
    for (const r of results) {
      process.stdout.write(
        r.harness === 'release'
          ? `${r.file}: results of the release's harness: ${r.rows} tasks, ${r.perTask} response slot(s) per task, ${r.slots} slots; not recorded there: ${r.missing.join(', ')}; \`xrepotest report\` gives their metrics\n`
          : `${r.file}: results of xrepotest: ${r.rows} slots; \`xrepotest report\` gives their metrics\n`,
      );
    }
    for (const { file, summary } of summaries) {
      const mutation = summary.mutation_testing;
      process.stdout.write(
        `${file}: the release's summary: total_samples ${summary.total_samples} (tasks), compiled_rate ${summary.compiled_rate.toFixed(2)}, test_pass_rate ${summary.test_pass_rate.toFixed(2)}, ` +
          `line_coverage ${summary.line_coverage.toFixed(2)}, invocation_rate ${summary.invocation_rate.toFixed(2)} (percent of tasks x responses)` +
          (mutation ? `; mutation: ${mutation.mutation_tests_run} runs, avg_mutation_score ${mutation.avg_mutation_score.toFixed(4)} (Σkilled / Σmutants, ${mutation.total_mutants_killed} of ${mutation.total_mutants_count})` : '') +
          '\n',
      );
    }
  }
  for (const p of problems) process.stderr.write(formatProblem(p) + '\n');
  if (problems.length) process.stderr.write(`${problems.length} lines could not be used (listed above); the rest loaded\n`);
  return problems.length && !tasks.length && !summaries.length ? 1 : 0;
}
