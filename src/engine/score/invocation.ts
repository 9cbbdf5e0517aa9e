import { adapterFor } from '../languages';
import type { LanguageId } from '../parse/grammars';
import { treeHasError } from '../parse/nodes';
import { parseWithDeadline } from '../parse/parse';
import type { TaskRecord } from '../tasks/record';
import type { FindInvocation, InvocationTarget, LanguageInvocation } from './invocation-target';
import type { InvocationResult } from './types';

export type { FindInvocation, InvocationTarget, LanguageInvocation };

const SCOPE_KEYS = ['package', 'module', 'namespace'] as const;

/** What the task's test must call: names from the record, spelled by the language's rules (its adapter's `invocation`). */
export function targetOf(task: TaskRecord, language: LanguageId): InvocationTarget {
  const meta = task.metadata ?? { class_name: '', class_signature: '' };
  const scopeKey = SCOPE_KEYS.find((k) => typeof meta[k] === 'string');
  const kind = meta.method_kind;
  const invocation = adapterFor(language).invocation;
  const target: InvocationTarget = {
    name: task.function_name,
    bareName: invocation.bareName ? invocation.bareName(task.function_name) : task.function_name,
    className: typeof meta.class_name === 'string' ? meta.class_name : '',
    scope: scopeKey ? (meta[scopeKey] as string) : '',
  };
  if (kind === 'instance' || kind === 'singleton') target.methodKind = kind;
  if (invocation.fileModule) target.fileModule = invocation.fileModule(task.file_path);
  return target;
}

export interface InvocationOptions {
  /** A test that does not parse within this time counts as not invoking (default 10 s). */
  parseDeadlineMs?: number;
}

/**
 * Whether a generated test calls the focal function. A suite that does not parse (an ERROR or
 * MISSING node, or a parse past the deadline) counts as no, as METRICS.md says: a name found inside
 * an error-recovered tree is not a call we can vouch for.
 */
export async function invocationOf(
  language: LanguageId,
  testCode: string,
  task: TaskRecord,
  options: InvocationOptions = {},
): Promise<InvocationResult> {
  const parsed = await parseWithDeadline(language, testCode, options.parseDeadlineMs ?? 10_000);
  if (!('tree' in parsed)) return { invoked: false, strict: false };
  try {
    if (treeHasError(parsed.tree)) return { invoked: false, strict: false };
    const result = adapterFor(language).invocation.find(parsed.tree, testCode, targetOf(task, language));
    // Strict is a refinement of invoked; a finder that said otherwise would be a bug, not a result.
    return { invoked: result.invoked, strict: result.invoked && result.strict };
  } finally {
    parsed.tree.delete();
  }
}
