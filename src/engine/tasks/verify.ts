import { adapterFor, type LanguageId } from '../languages';
import type { TaskRecord } from './record';
import { pathInRepository } from './task-path';

export type TaskIssue = 'focal-code-mismatch' | 'lines-out-of-range' | 'from-test-file';

/**
 * What is wrong with a task, as far as its own record tells: focal_code must be exactly lines
 * start_line..end_line of file_content (the harness places tests and measures coverage by those
 * lines), and a focal function never comes from a test file.
 */
export function verifyTask(task: TaskRecord, language: LanguageId): TaskIssue[] {
  const issues: TaskIssue[] = [];
  const lines = task.file_content.split('\n');
  const { start_line, end_line } = task.function_component;
  if (start_line < 1 || end_line > lines.length) issues.push('lines-out-of-range');
  else if (lines.slice(start_line - 1, end_line).join('\n').replace(/\r$/, '') !== task.focal_code.replace(/\r$/, '')) {
    issues.push('focal-code-mismatch');
  }
  const inRepo = pathInRepository(task.file_path);
  if (adapterFor(language).isTestFile(inRepo)) issues.push('from-test-file');
  return issues;
}
