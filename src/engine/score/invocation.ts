import type { Tree } from 'web-tree-sitter';
import { findInvocation as goInvocation } from '../languages/go/invocation';
import { findInvocation as juliaInvocation } from '../languages/julia/invocation';
import { findInvocation as phpInvocation } from '../languages/php/invocation';
import { findInvocation as rubyInvocation } from '../languages/ruby/invocation';
import { findInvocation as rustInvocation } from '../languages/rust/invocation';
import type { LanguageId } from '../parse/grammars';
import { treeHasError } from '../parse/nodes';
import { parseWithDeadline } from '../parse/parse';
import type { TaskRecord } from '../tasks/record';
import type { InvocationResult } from './types';

/** What a test must call to count as invoking the focal function (METRICS.md, IR). */
export interface InvocationTarget {
  /** `function_name` as recorded: `Push`, `Base.show`, `fn{T}`. */
  name: string;
  /** The name a call site spells: `show` for `Base.show`, `f` for `f{T}`, `==` for `Base.:(==)`. */
  bareName: string;
  /** The method's type, class, trait or module; '' for a free function. */
  className: string;
  /** The enclosing package, module or namespace ('' where there is none). */
  scope: string;
  /** Ruby: `def self.x` and `class << self` methods are singleton methods. */
  methodKind?: 'instance' | 'singleton';
  /**
   * Rust only: the module the focal file itself is (`triangle` for `src/triangle.rs`, '' for the crate
   * root). `metadata.module` records inline `mod`s only, so without this a qualified call
   * `triangle::f()` to a file-level function could not be told from `other::f()`.
   */
  fileModule?: string;
}

export type FindInvocation = (tree: Tree, source: string, target: InvocationTarget) => InvocationResult;

const FINDERS: Record<LanguageId, FindInvocation> = {
  go: goInvocation,
  rust: rustInvocation,
  php: phpInvocation,
  ruby: rubyInvocation,
  julia: juliaInvocation,
};

const SCOPE_KEYS = ['package', 'module', 'namespace'] as const;

/** `Base.show` -> `show`, `f{T}` -> `f`, `Base.:(==)` / `Base.:+` -> `==` / `+`. */
function bareNameOf(name: string, language: LanguageId): string {
  if (language !== 'julia') return name;
  const noParams = name.replace(/\{.*$/s, '');
  const operator = /\.:\(?([^()]+)\)?$/.exec(noParams);
  if (operator) return operator[1];
  return noParams.replace(/^.*\./, '');
}

/** `src/triangle.rs` -> `triangle`; `src/shapes/mod.rs` -> `shapes`; `src/lib.rs`, `src/main.rs` -> ''. */
function rustFileModule(filePath: string): string {
  const parts = filePath.split('/');
  const file = parts[parts.length - 1] ?? '';
  if (file === 'mod.rs') return parts[parts.length - 2] ?? '';
  if (file === 'lib.rs' || file === 'main.rs') return '';
  return file.replace(/\.rs$/, '');
}

export function targetOf(task: TaskRecord, language: LanguageId): InvocationTarget {
  const meta = task.metadata ?? { class_name: '', class_signature: '' };
  const scopeKey = SCOPE_KEYS.find((k) => typeof meta[k] === 'string');
  const kind = meta.method_kind;
  const target: InvocationTarget = {
    name: task.function_name,
    bareName: bareNameOf(task.function_name, language),
    className: typeof meta.class_name === 'string' ? meta.class_name : '',
    scope: scopeKey ? (meta[scopeKey] as string) : '',
  };
  if (kind === 'instance' || kind === 'singleton') target.methodKind = kind;
  if (language === 'rust') target.fileModule = rustFileModule(task.file_path);
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
    const result = FINDERS[language](parsed.tree, testCode, targetOf(task, language));
    // Strict is a refinement of invoked; a finder that said otherwise would be a bug, not a result.
    return { invoked: result.invoked, strict: result.invoked && result.strict };
  } finally {
    parsed.tree.delete();
  }
}
