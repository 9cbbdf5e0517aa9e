import type { TaskRecord } from '../../tasks/record';
import type { LspContext } from '../types';

/**
 * The release's enriched LSP fields (notes/xrepotest-release.md §1) as an LspContext, or null when the
 * record carries none (base records, and the repositories the release skipped, whose lists are empty):
 * - `function_component.argument_definitions_lsp: [{definitions: [{definition}]}]` -> argument definitions;
 * - `function_component.focal_method_analysis.tokens[]`: a token's `definition.code` (when
 *   `need_definition`) -> callee definitions, its `references[].code` (when `need_references`) ->
 *   condition references.
 * Snippets are kept in order, empty and repeated ones dropped.
 */
export function publishedLspContext(task: TaskRecord): LspContext | null {
  const fc = task.function_component as Record<string, unknown>;
  const args = fc.argument_definitions_lsp;
  const analysis = fc.focal_method_analysis;
  if (args === undefined && analysis === undefined) return null;
  const ctx: LspContext = { argumentDefinitions: [], calleeDefinitions: [], conditionReferences: [] };
  const seen = new Set<string>();
  const push = (list: string[], text: unknown): void => {
    if (typeof text !== 'string' || text.trim() === '' || seen.has(text.trim())) return;
    seen.add(text.trim());
    list.push(text);
  };
  for (const arg of asArray(args)) for (const d of asArray(field(arg, 'definitions'))) push(ctx.argumentDefinitions, field(d, 'definition'));
  for (const token of asArray(field(analysis, 'tokens'))) {
    if (field(token, 'need_definition') !== false) push(ctx.calleeDefinitions, field(field(token, 'definition'), 'code'));
    if (field(token, 'need_references') !== false) for (const r of asArray(field(token, 'references'))) push(ctx.conditionReferences, field(r, 'code'));
  }
  const empty = ctx.argumentDefinitions.length + ctx.calleeDefinitions.length + ctx.conditionReferences.length === 0;
  return empty ? null : ctx;
}

function asArray(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

function field(v: unknown, name: string): unknown {
  return v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[name] : undefined;
}
