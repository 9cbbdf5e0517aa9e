import type { Node, Tree } from 'web-tree-sitter';
import type { LanguageId } from '../../parse/grammars';
import { parseWithDeadline } from '../../parse/parse';
import type { TaskRecord } from '../../tasks/record';

/** What every language's baseline needs from the task: the parsed focal file and the focal definition in it. */
export interface FocalSite {
  task: TaskRecord;
  /** The text that was parsed: the focal file, or the focal code alone when the record has no file. */
  source: string;
  root: Node;
  /** The focal definition node. */
  fn: Node;
}

const PARSE_DEADLINE_MS = 10_000;

/**
 * Parses the focal file and finds the focal definition: a node of one of `types` starting on the
 * recorded line (the name is checked too, so a one-line file with several definitions still works).
 * Falls back to the focal code alone when the file is missing or does not hold it. The tree is freed
 * after `use` returns.
 */
export async function withFocalSite<R>(
  task: TaskRecord,
  language: LanguageId,
  types: readonly string[],
  nameOf: (fn: Node) => string | null,
  use: (site: FocalSite) => R,
  /** The focal code made parseable on its own (PHP needs `<?php` and, for a method, its class). */
  standalone: (task: TaskRecord) => string = (t) => t.focal_code,
): Promise<R> {
  const attempts: Array<{ source: string; row: number | null }> = [];
  if (task.file_content) attempts.push({ source: task.file_content, row: task.function_component.start_line - 1 });
  attempts.push({ source: standalone(task), row: null });
  const bare = bareFunctionName(task.function_name);
  for (const { source, row } of attempts) {
    const parsed = await parseWithDeadline(language, source, PARSE_DEADLINE_MS);
    if (!('tree' in parsed)) continue;
    const tree: Tree = parsed.tree;
    try {
      const candidates = tree.rootNode.descendantsOfType([...types]).filter((n): n is Node => n !== null);
      const fn =
        candidates.find((n) => (row === null || n.startPosition.row === row) && nameOf(n) === bare) ??
        candidates.find((n) => row !== null && n.startPosition.row === row) ??
        null;
      if (fn) return use({ task, source, root: tree.rootNode, fn });
    } finally {
      tree.delete();
    }
  }
  throw new Error(`baseline: cannot find ${task.function_name} in ${task.file_path}`);
}

/** `Base.show` -> `show`, `f{T}` -> `f`: the name a definition node spells. */
export function bareFunctionName(name: string): string {
  return name.replace(/\{.*$/s, '').replace(/^.*\./, '');
}

/** The innermost ancestor of one of the given types, or null. */
export function enclosing(node: Node, types: ReadonlySet<string>): Node | null {
  for (let p = node.parent; p; p = p.parent) if (types.has(p.type)) return p;
  return null;
}

/** Every ancestor of one of the given types, outermost first. */
export function enclosingAll(node: Node, types: ReadonlySet<string>): Node[] {
  const out: Node[] = [];
  for (let p = node.parent; p; p = p.parent) if (types.has(p.type)) out.unshift(p);
  return out;
}

/** `snake_case`, `kebab-case`, `valid_isbn?`, `Base.show` -> `SnakeCase` …: a fragment for a test's name. */
export function pascalCase(name: string): string {
  const words = name.split(/[^A-Za-z0-9]+/).filter(Boolean);
  const joined = words.map((w) => w[0].toUpperCase() + w.slice(1)).join('');
  return joined;
}

export function snakeCase(name: string): string {
  const out = name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toLowerCase();
  return out || 'focal';
}

export function indent(text: string, prefix: string): string {
  return text
    .split('\n')
    .map((l) => (l ? prefix + l : l))
    .join('\n');
}

/**
 * The literal a baseline passes for a scalar, the same in every language: small, non-zero, and valid
 * for most domains (1 is a count, a length, a width; "a" is a word), so the call gets past the first
 * guard more often than zero values would, without guessing at meaning.
 */
export const LITERAL = { int: '1', float: '1.0', string: 'a' } as const;

/**
 * A guess at what a parameter of a dynamically typed language holds, from how the focal body uses it
 * and from its name. Only used where the language records no type.
 */
export type Guess = 'list' | 'map' | 'int' | 'float' | 'string' | 'bool' | 'unknown';

export function guessFromName(name: string): Guess {
  const n = name.replace(/^[@$:&*]+/, '').toLowerCase();
  if (/^(is|has|can|should|allow)_|^(strict|force|verbose|enabled?|flag|recursive)$|\?$/.test(n)) return 'bool';
  if (/(^|_)(opts|options|params|attrs|attributes|config|settings|hash|dict|map|mapping|env|headers)$/.test(n)) return 'map';
  if (/(^|_)(list|array|items|values|rows|lines|words|args|elements|entries|xs|ys|vec|vector)$/.test(n)) return 'list';
  if (/(^|_)(n|i|j|k|count|num|number|size|len|length|limit|max|min|index|idx|days|day|year|age|qty|quantity|amount|width|height|depth|level|offset|capacity|cents|total|id)$|^(days|n|k)_/.test(n)) return 'int';
  if (/(^|_)(ratio|rate|fraction|factor|weight|scale|x|y|z|lat|lon|score|price)$/.test(n)) return 'float';
  if (/(^|_)(name|text|str|string|title|query|path|file|filename|code|key|label|word|sku|isbn|url|prefix|suffix|message|msg|line|sep|separator|format|pattern|input|s|author|slug|token)$/.test(n)) return 'string';
  if (/s$/.test(n) && n.length > 3) return 'list';
  return 'unknown';
}
