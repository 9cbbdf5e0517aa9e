import * as fs from 'node:fs';
import type { CompletionRequest, CompletionResult, Provider, Usage } from '../types';
import { ProviderError } from './errors';

/** What a line of a replay file gives: the reply, or the recorded failure. */
interface Recorded {
  text?: string;
  error?: string;
  usage?: Usage;
  line: number;
}

/**
 * Keys, most specific first: our stable id; language and task_id; task_id alone (the release's
 * files carry no language, one file per language).
 */
function keysOf(id: string | undefined, language: string | undefined, taskId: string | number, sample: number, round: number, improve = 0): string[] {
  // An improvement round's reply is keyed apart from the test it improves (records before them have no `improve`).
  const tail = `#${sample}#${round}${improve ? `#i${improve}` : ''}`;
  const keys: string[] = [];
  if (id) keys.push(`id:${id}${tail}`);
  if (language) keys.push(`lang:${language}:${taskId}${tail}`);
  else keys.push(`task:${taskId}${tail}`);
  return keys;
}

interface ReplayLine {
  id?: unknown;
  task_id?: unknown;
  language?: unknown;
  sample?: unknown;
  round?: unknown;
  improve?: unknown;
  raw_response?: unknown;
  test_code?: unknown;
  usage?: unknown;
  error?: unknown;
  response?: unknown;
  status?: unknown;
}

const asInt = (v: unknown, dflt: number) => (typeof v === 'number' && Number.isInteger(v) ? v : dflt);

/** Reads GenerationRecords, the release's prompts_responses.jsonl (`{task_id, response, status}`) or its processed.jsonl (`response: [...]`). */
export function loadReplayFile(file: string): Map<string, Recorded> {
  const byKey = new Map<string, Recorded>();
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  lines.forEach((text, i) => {
    if (!text.trim()) return;
    const line = i + 1;
    let r: ReplayLine;
    try {
      r = JSON.parse(text) as ReplayLine;
    } catch (e) {
      throw new Error(`replay file ${file}:${line}: not JSON (${(e as Error).message})`);
    }
    if (typeof r.task_id !== 'number' && typeof r.task_id !== 'string') throw new Error(`replay file ${file}:${line}: no task_id`);
    const id = typeof r.id === 'string' ? r.id : undefined;
    const language = typeof r.language === 'string' ? r.language : undefined;
    const usage = r.usage as Usage | undefined;
    const improve = asInt(r.improve, 0);
    const put = (sample: number, round: number, rec: Recorded) => {
      // A later line wins: a rerun appended to the same file replaces the earlier reply.
      for (const k of keysOf(id, language, r.task_id as string | number, sample, round, improve)) byKey.set(k, rec);
    };
    const sample = asInt(r.sample, 0);
    const round = asInt(r.round, 0);
    if (typeof r.raw_response === 'string' || typeof r.test_code === 'string') {
      // A GenerationRecord; one that failed has an error and no reply.
      const reply = typeof r.raw_response === 'string' && r.raw_response !== '' ? r.raw_response : (r.test_code as string | undefined);
      const error = typeof r.error === 'string' && !reply ? r.error : undefined;
      put(sample, round, error ? { error, line } : { text: reply ?? '', usage, line });
    } else if (typeof r.response === 'string') {
      put(sample, round, r.status === 'error' ? { error: typeof r.error === 'string' ? r.error : 'status "error"', line } : { text: r.response, line });
    } else if (Array.isArray(r.response)) {
      // processed.jsonl: already-extracted tests, one per sample slot; a bare test passes through extractTest unchanged.
      r.response.forEach((t, s) => {
        if (typeof t === 'string') put(sample + s, round, { text: t, line });
      });
    } else {
      throw new Error(`replay file ${file}:${line}: expected "raw_response"/"test_code" (a generation record) or "response" (the release's files)`);
    }
  });
  return byKey;
}

/** Replies recorded earlier, answered per (task, sample, round); nothing is sent anywhere. */
export class ReplayProvider implements Provider {
  readonly id = 'replay';
  private readonly recorded: Map<string, Recorded>;

  constructor(readonly file: string) {
    if (!fs.existsSync(file)) throw new ProviderError(`replay: no such file ${file}`, 'config', false);
    this.recorded = loadReplayFile(file);
  }

  async complete(request: CompletionRequest): Promise<CompletionResult> {
    const { task, sample, round } = request;
    const improve = request.improvement?.round ?? 0;
    const started = Date.now();
    const candidates = [
      ...keysOf(task.id, request.language, task.task_id, sample, round, improve),
      ...keysOf(undefined, undefined, task.task_id, sample, round, improve),
    ];
    const hit = candidates.map((k) => this.recorded.get(k)).find((r) => r !== undefined);
    const name = `${request.language} task ${task.task_id}${task.id ? ` (id ${task.id})` : ''} ${task.function_name} in ${task.file_path}, sample ${sample}, round ${round}${improve ? `, improvement round ${improve}` : ''}`;
    if (!hit) throw new ProviderError(`replay: no recorded response for ${name} in ${this.file}`, 'replay', false);
    if (hit.error !== undefined) throw new ProviderError(`replay: the recorded call for ${name} failed (${this.file}:${hit.line}): ${hit.error}`, 'replay', false);
    return { text: hit.text ?? '', usage: hit.usage ?? { inputTokens: 0, outputTokens: 0 }, costUsd: null, cached: false, latencyMs: Date.now() - started };
  }
}
