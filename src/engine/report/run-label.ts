import { contextModeSpec, isContextMode } from '../context/modes';

/**
 * A benchmark run's report title in words: who wrote the tests and with what context
 * ("offline baseline, standard context"; "anthropic claude-sonnet-4-5, lsp context: LSP (definitions…)").
 * The settings' own spellings stay in it, so the title still names what to pass again.
 */
export function runLabel(s: { provider: string; model: string; mode: string }): string {
  const who = s.provider === 'baseline' ? 'offline baseline' : s.provider === 'replay' ? `recorded replies${s.model ? ` of ${s.model}` : ''}` : `${s.provider} ${s.model}`.trim();
  const described = isContextMode(s.mode) && s.mode !== 'standard' ? ` (${contextModeSpec(s.mode).label.replace(/^[^(]*\(|\)$/g, '')})` : '';
  return `${who}, ${s.mode} context${described}`;
}
