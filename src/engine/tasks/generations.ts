import { parseLanguageId, type LanguageId } from '../languages';
import { readJsonl, type JsonlProblem } from './jsonl';
import type { LoadedTask } from './load';

/** One generated test to run: which task, which sample, the code. */
export interface Generation {
  task: LoadedTask;
  sample: number;
  testCode: string;
  /** Where the test came from, when the generation says (our generate command writes it). */
  origin: GenerationOrigin;
}

export interface GenerationOrigin {
  round: number;
  mode: string | null;
  provider: string | null;
  model: string | null;
  /** The offline baseline, a lower bound: reports label it. */
  baseline: boolean;
}

interface RawGeneration {
  task_id?: number | string;
  id?: string;
  language?: string;
  sample?: number;
  round?: number;
  /** An improvement round's candidate (a bench folder's generations.jsonl): part of its slot's suite, not a slot. */
  improve?: number;
  mode?: string;
  provider?: string;
  model?: string;
  baseline?: boolean;
  test_code?: string;
  /** The release's processed.jsonl: up to 10 extracted tests per task. */
  response?: unknown;
}

/**
 * Reads generations — ours (`{task_id | id, language?, sample?, test_code}`) or the release's
 * `processed.jsonl` (`{task_id, response: [test_code, …], status}`) — and joins them to tasks: by
 * stable `id` when given, else by (language, task_id), since task ids restart at 0 per language.
 */
export async function loadGenerations(files: readonly string[], tasks: readonly LoadedTask[]): Promise<{ generations: Generation[]; problems: JsonlProblem[] }> {
  const problems: JsonlProblem[] = [];
  const byId = new Map<string, LoadedTask>();
  const byTaskId = new Map<string, LoadedTask[]>();
  for (const t of tasks) {
    if (t.task.id) byId.set(t.task.id, t);
    const key = String(t.task.task_id);
    byTaskId.set(key, [...(byTaskId.get(key) ?? []), t]);
  }
  const generations: Generation[] = [];
  const usedSamples = new Map<string, Set<number>>();
  for (const file of files) {
    for await (const { line, value } of readJsonl(file, problems)) {
      const g = value as RawGeneration;
      // Scored within its slot's suite by the bench that asked for it; `run` scores slots.
      if (typeof g.improve === 'number' && g.improve > 0) continue;
      const fail = (message: string): void => void problems.push({ file, line, message });
      let task: LoadedTask | undefined;
      if (typeof g.id === 'string') {
        task = byId.get(g.id);
        if (!task) {
          fail(`no task with id ${g.id}`);
          continue;
        }
      } else if (g.task_id !== undefined) {
        let candidates = byTaskId.get(String(g.task_id)) ?? [];
        if (g.language) {
          const lang: LanguageId | undefined = parseLanguageId(g.language);
          candidates = candidates.filter((t) => t.language === lang);
        }
        if (candidates.length !== 1) {
          fail(candidates.length ? `task_id ${g.task_id} is ambiguous across languages: add "language" or "id"` : `no task with task_id ${g.task_id}`);
          continue;
        }
        task = candidates[0];
      } else {
        fail('a generation needs "id" or "task_id"');
        continue;
      }
      const given = typeof g.test_code === 'string' ? [g.test_code] : Array.isArray(g.response) ? g.response.filter((r): r is string => typeof r === 'string') : null;
      if (!given) {
        fail('a generation needs "test_code" (a string) or "response" (a list of strings)');
        continue;
      }
      // The release writes an empty list for a task its model gave no test: one slot with no test,
      // scored as a zero with its reason (as a benchmark keeps it), never a task dropped from N.
      const codes = given.length ? given : [''];
      const origin: GenerationOrigin = {
        round: g.round ?? 0,
        mode: g.mode ?? null,
        provider: g.provider ?? null,
        model: g.model ?? null,
        baseline: g.baseline === true,
      };
      // A slot is (task, sample, round) of one experiment: lines that give no sample number are numbered
      // after the ones already seen, so two lines for one task never claim the same slot.
      const slot = JSON.stringify([task.task.id ?? `${task.language}:${task.task.task_id}`, origin.round, origin.provider, origin.model, origin.mode, origin.baseline]);
      const used = (usedSamples.get(slot) ?? usedSamples.set(slot, new Set()).get(slot))!;
      const first = typeof g.sample === 'number' ? g.sample : used.size ? Math.max(...used) + 1 : 0;
      codes.forEach((testCode, i) => {
        const sample = first + i;
        if (used.has(sample)) fail(`sample ${sample} (round ${origin.round}) of this task is also on an earlier line: both run, and a report counts only the later one`);
        used.add(sample);
        generations.push({ task: task!, sample, testCode, origin });
      });
    }
  }
  return { generations, problems };
}
