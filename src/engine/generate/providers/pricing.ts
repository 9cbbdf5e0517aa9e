import * as fs from 'node:fs';
import type { Usage } from '../types';

/** US dollars per million tokens. */
export interface Price {
  input: number;
  output: number;
}

export type PriceTable = Record<string, Price>;

/**
 * List prices (standard tier, no batch or cache discounts) as published by Anthropic and OpenAI,
 * read in November 2026. Prices change: override them with `prices` or a JSON file rather than
 * trusting this table for billing. Keys are model ids without a date suffix.
 */
export const DEFAULT_PRICES: Readonly<PriceTable> = {
  // Anthropic
  'claude-fable-5-1': { input: 10, output: 50 },
  'claude-opus-5-5': { input: 4, output: 20 },
  'claude-opus-5': { input: 5, output: 25 },
  'claude-sonnet-5-5': { input: 2, output: 10 },
  'claude-opus-4-6': { input: 5, output: 25 },
  'claude-opus-4-5': { input: 5, output: 25 },
  'claude-sonnet-4-6': { input: 3, output: 15 },
  'claude-sonnet-4-5': { input: 3, output: 15 },
  'claude-haiku-4-5': { input: 1, output: 5 },
  // OpenAI
  'gpt-5.4': { input: 2.5, output: 15 },
  'gpt-5.4-mini': { input: 0.75, output: 4.5 },
  'gpt-5.2': { input: 1.75, output: 14 },
  'gpt-5.1': { input: 1.25, output: 10 },
  'gpt-5': { input: 1.25, output: 10 },
  'gpt-5-mini': { input: 0.25, output: 2 },
  'gpt-5-nano': { input: 0.05, output: 0.4 },
  'gpt-4.1': { input: 2, output: 8 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4 },
  'gpt-4o': { input: 2.5, output: 10 },
  'gpt-4o-mini': { input: 0.15, output: 0.6 },
  o3: { input: 2, output: 8 },
  'o4-mini': { input: 1.1, output: 4.4 },
};

// Snapshot ids carry a date (`claude-sonnet-4-5-20250929`, `gpt-4.1-2025-04-14`) and cost what the alias costs.
const DATE_SUFFIX = /-(?:\d{8}|\d{4}-\d{2}-\d{2})$/;

/**
 * The price of a model: an exact entry, else the entry of its undated alias. No prefix matching —
 * `gpt-5.4-pro` is not priced like `gpt-5.4`, and a guess is worse than an honest null.
 */
export function priceOf(model: string, table: Readonly<PriceTable> = DEFAULT_PRICES): Price | null {
  return table[model] ?? table[model.replace(DATE_SUFFIX, '')] ?? null;
}

export function costUsd(model: string, usage: Usage, table: Readonly<PriceTable> = DEFAULT_PRICES): number | null {
  const p = priceOf(model, table);
  if (!p) return null;
  return (usage.inputTokens * p.input + usage.outputTokens * p.output) / 1_000_000;
}

/** Reads `{ "<model>": { "input": n, "output": n } }`, failing with the file and entry at fault. */
export function loadPriceFile(file: string): PriceTable {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Error(`price file ${file}: ${(e as Error).message}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new Error(`price file ${file}: expected an object of { "<model>": { "input": USD/Mtok, "output": USD/Mtok } }`);
  }
  const table: PriceTable = {};
  for (const [model, v] of Object.entries(parsed as Record<string, unknown>)) {
    const p = v as Partial<Price> | null;
    if (!p || typeof p.input !== 'number' || typeof p.output !== 'number' || p.input < 0 || p.output < 0) {
      throw new Error(`price file ${file}: "${model}" needs non-negative numbers "input" and "output" (USD per million tokens)`);
    }
    table[model] = { input: p.input, output: p.output };
  }
  return table;
}

/** The default table with overrides on top (the file first, then the explicit table). */
export function priceTable(opts: { prices?: PriceTable; priceFile?: string; includeDefaults?: boolean } = {}): PriceTable {
  return {
    ...(opts.includeDefaults === false ? {} : DEFAULT_PRICES),
    ...(opts.priceFile ? loadPriceFile(opts.priceFile) : {}),
    ...(opts.prices ?? {}),
  };
}
