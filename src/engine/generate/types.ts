import type { ContextMode } from '../context/modes';
import type { LanguageId } from '../parse/grammars';
import type { TaskRecord } from '../tasks/record';

/** The context modes are registered in context/modes (the union follows from the registry). */
export type { ContextMode };

/** What is sent for one task: the paper's system prompt and user prompt (context block in front). */
export interface Prompt {
  system: string;
  user: string;
  mode: ContextMode;
  language: LanguageId;
}

export interface ChatMessage {
  role: 'user' | 'assistant';
  content: string;
}

/** Decoding settings; the paper's are temperature 0, top_p 1, 4,096 max tokens, one sample. */
export interface GenerationParams {
  model: string;
  temperature: number;
  maxTokens: number;
  topP: number;
}

export const PAPER_PARAMS: Omit<GenerationParams, 'model'> = { temperature: 0, maxTokens: 4096, topP: 1 };

export interface CompletionRequest {
  system: string;
  /** The conversation: the prompt, and for a repair round the earlier reply and the repair request. */
  messages: ChatMessage[];
  params: GenerationParams;
  /** The task and sample, for providers that answer per task (replay, baseline). */
  task: TaskRecord;
  language: LanguageId;
  sample: number;
  /** Repair round: 0 for the first generation. */
  round: number;
  /**
   * An improvement round (1-based) after the test of `round` passed: what the suite leaves uncovered
   * and the mutants it leaves alive, for providers that answer without reading the prompt (baseline).
   */
  improvement?: ImprovementHint;
  signal?: AbortSignal;
}

/** What an improvement round asks for, as data (the prompt says the same in words: prompt/improvement.ts). */
export interface ImprovementHint {
  /** 1-based improvement round. */
  round: number;
  /** Executable focal lines (1-based, in the focal file) no test of the suite runs. */
  uncoveredLines: number[];
  /** Mutants of the focal function no test of the suite detects. */
  survivors: SurvivingMutant[];
}

/** A mutant no test detected, as the mutation run reports it (mutate/run.ts). */
export interface SurvivingMutant {
  id: string;
  operator: string;
  line: number;
  original: string;
  replacement: string;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

export interface CompletionResult {
  text: string;
  usage: Usage;
  /** US dollars, from the provider's price table; null where unknown (local servers, replay). */
  costUsd: number | null;
  /** Answered from the response cache (no call made, no cost). */
  cached: boolean;
  latencyMs: number;
}

/** One way of getting a reply: a hosted API, a local server, recorded replies, or the offline baseline. */
export interface Provider {
  /** `anthropic`, `openai`, `openai-compatible`, `replay`, `baseline`. */
  readonly id: string;
  /** A lower bound, not a model (the baseline): reports label it as such. */
  readonly isBaseline?: boolean;
  /** The server it talks to (base URL), where there is one: part of the cache key and request hash. */
  readonly endpoint?: string;
  complete(request: CompletionRequest): Promise<CompletionResult>;
}

/** A line of generations.jsonl: what `xrepotest run` reads (`id`/`task_id`, `language`, `sample`, `test_code`). */
export interface GenerationRecord {
  id?: string;
  task_id: number | string;
  language: LanguageId;
  sample: number;
  /** Repair round that produced this test (0 = first generation). */
  round: number;
  /** Improvement round (1-based) after the passing test of `round`; absent for the test itself. */
  improve?: number;
  mode: ContextMode;
  provider: string;
  model: string;
  /** The test extracted from the reply (fenced blocks joined, or the raw text). */
  test_code: string;
  /** The reply as received. */
  raw_response: string;
  /** sha256 of (provider, endpoint, model, system, messages, params): the response cache key. */
  request_hash: string;
  usage: Usage;
  cost_usd: number | null;
  cached: boolean;
  baseline?: boolean;
  error?: string;
}
