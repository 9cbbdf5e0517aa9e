import type { ErrorObject } from 'ajv';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseLanguageId, type LanguageId } from '../languages';
import { readJsonl, type JsonlProblem } from './jsonl';
import type { TaskRecord } from './record';
import { repositoryNameProblem, TASK_PATH_RULE, taskPathProblem } from './task-path';
import { validatorOf } from '../util/lazy-validator';

/**
 * What a task record must have to be used. Loose where the release is loose (task_id is an int there,
 * a string in some derived sets; enriched files add fields), strict on what the pipeline reads.
 */
const TASK_SCHEMA = {
  type: 'object',
  required: ['task_id', 'function_name', 'file_path', 'focal_code', 'file_content', 'language', 'function_component', 'metadata'],
  properties: {
    task_id: { type: ['integer', 'string'] },
    function_name: { type: 'string', minLength: 1 },
    file_path: { type: 'string', minLength: 1 },
    focal_code: { type: 'string' },
    file_content: { type: 'string' },
    language: { type: 'string' },
    function_component: {
      type: 'object',
      required: ['name', 'start_line', 'end_line'],
      properties: {
        name: { type: 'string' },
        signature: { type: 'string' },
        start_line: { type: 'integer', minimum: 1 },
        end_line: { type: 'integer', minimum: 1 },
      },
    },
    metadata: { type: 'object' },
    id: { type: 'string' },
    repository: {
      type: 'object',
      required: ['name', 'url'],
      properties: { name: { type: 'string' }, url: { type: 'string' }, commit: { type: ['string', 'null'] } },
    },
  },
} as const;

const validate = validatorOf(TASK_SCHEMA);

function describeErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? []).map((e) => `${e.instancePath || 'record'} ${e.message ?? 'is invalid'}`).join('; ');
}

/**
 * A record the pipeline can use, with its language, or what is wrong with it: the loader's checks, also
 * applied to a task arriving from elsewhere (a queue's job).
 */
export function checkTaskRecord(value: unknown): { task: TaskRecord; language: LanguageId } | { problem: string } {
  if (!validate(value)) return { problem: `not a task record: ${describeErrors(validate.errors)}` };
  const task = value as unknown as TaskRecord;
  const pathProblem = taskPathProblem(task.file_path);
  if (pathProblem) return { problem: `refused: file_path ${JSON.stringify(task.file_path)} ${pathProblem}; ${TASK_PATH_RULE}. Fix or drop this record` };
  const nameProblem = task.repository ? repositoryNameProblem(task.repository.name) : null;
  if (nameProblem) return { problem: `refused: repository.name ${JSON.stringify(task.repository!.name)} ${nameProblem}; it must be one folder name. Fix or drop this record` };
  const language = parseLanguageId(task.language);
  if (!language) return { problem: `unknown language ${JSON.stringify(task.language)} (expected rust, go, php, ruby or julia)` };
  if (task.function_component.end_line < task.function_component.start_line) return { problem: 'function_component.end_line is before start_line' };
  return { task, language };
}

export interface LoadedTask {
  task: TaskRecord;
  language: LanguageId;
  file: string;
  line: number;
}

export interface LoadResult {
  tasks: LoadedTask[];
  problems: JsonlProblem[];
}

/** Task files: ours, or the release's base / LSP / RAG files as published; a folder loads every .jsonl in it. */
export async function loadTasks(inputs: readonly string[]): Promise<LoadResult> {
  const problems: JsonlProblem[] = [];
  const tasks: LoadedTask[] = [];
  for (const file of expandInputs(inputs)) {
    for await (const { line, value } of readJsonl(file, problems)) {
      const checked = checkTaskRecord(value);
      if ('problem' in checked) {
        problems.push({ file, line, message: checked.problem });
        continue;
      }
      const { task, language } = checked;
      tasks.push({ task, language, file, line });
    }
  }
  return { tasks, problems };
}

function expandInputs(inputs: readonly string[]): string[] {
  const files: string[] = [];
  for (const input of inputs) {
    if (!fs.existsSync(input)) throw new Error(`${input}: no such file or folder`);
    if (fs.statSync(input).isDirectory()) {
      const walk = (dir: string): void => {
        for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
          const p = path.join(dir, e.name);
          if (e.isDirectory()) walk(p);
          else if (e.name.endsWith('.jsonl')) files.push(p);
        }
      };
      walk(input);
    } else files.push(input);
  }
  return files;
}
