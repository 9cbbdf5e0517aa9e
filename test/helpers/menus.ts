/**
 * package.json's contributed menus as VS Code shows them, for tests that ask "which action is first":
 * the `when` clauses this extension's Testing menus use (`key`, `!key`, `key == v`, `key != v`,
 * `key =~ /re/`, `&&`, `||`) evaluated against a context, then VS Code's menu order (menuService.ts:
 * groups with `navigation` first, items without a group last, then the `@order` of the group (0 when
 * none), then the title). The peek shows only the first `testing/message/content` action, as its button.
 * Pure: reads package.json only.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface MenuEntry {
  command: string;
  when?: string;
  group?: string;
}

export type WhenContext = Record<string, string | boolean | undefined>;

interface PackageJson {
  contributes: { commands: Array<{ command: string; title: string }>; menus: Record<string, MenuEntry[]> };
}

export function readPackageJson(repoRoot: string): PackageJson {
  return JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as PackageJson;
}

/** One `when` clause, for the operators listed above; anything else (parentheses, `in`, `<`) throws, so a test never guesses. */
export function evaluateWhen(when: string | undefined, context: WhenContext): boolean {
  if (when === undefined || when.trim() === '') return true;
  if (/[()]/.test(when.replace(/\/(?:\\\/|[^/])+\//g, ''))) throw new Error(`parentheses are not supported here: ${when}`);
  return splitOutsideRegex(when, '||').some((any) => splitOutsideRegex(any, '&&').every((term) => evaluateTerm(term.trim(), context)));
}

function evaluateTerm(term: string, context: WhenContext): boolean {
  const regex = /^([\w.]+)\s*=~\s*\/((?:\\\/|[^/])+)\/$/.exec(term);
  if (regex) {
    const value = context[regex[1]];
    return typeof value === 'string' && new RegExp(regex[2]).test(value);
  }
  const cmp = /^([\w.]+)\s*(==|!=)\s*(.+)$/.exec(term);
  if (cmp) {
    const value = context[cmp[1]];
    const equal = String(value) === cmp[3].trim().replace(/^'(.*)'$/, '$1');
    return cmp[2] === '==' ? equal : !equal;
  }
  if (term === 'true') return true;
  if (term === 'false') return false;
  const not = /^!\s*([\w.]+)$/.exec(term);
  if (not) return !context[not[1]];
  if (/^[\w.]+$/.test(term)) return !!context[term];
  throw new Error(`unsupported when term: ${term}`);
}

/** Splits at an operator outside `/regex/` literals. */
function splitOutsideRegex(text: string, op: string): string[] {
  const parts: string[] = [];
  let inRegex = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\\' && inRegex) {
      i++;
      continue;
    }
    if (text[i] === '/' && (inRegex || /=~\s*$/.test(text.slice(start, i)))) inRegex = !inRegex;
    else if (!inRegex && text.startsWith(op, i)) {
      parts.push(text.slice(start, i));
      start = i + op.length;
      i += op.length - 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

/** The commands a menu shows in a context, in VS Code's order. */
export function visibleActions(pkg: PackageJson, menu: string, context: WhenContext): string[] {
  const titleOf = (command: string): string => pkg.contributes.commands.find((c) => c.command === command)?.title ?? command;
  const entries = (pkg.contributes.menus[menu] ?? []).filter((e) => evaluateWhen(e.when, context));
  const parsed = entries.map((e) => {
    const [group, order] = (e.group ?? '').split('@');
    return { command: e.command, group, order: Number(order) || 0, title: titleOf(e.command) };
  });
  parsed.sort((a, b) => {
    if (a.group !== b.group) {
      if (!a.group) return 1;
      if (!b.group) return -1;
      if (a.group === 'navigation') return -1;
      if (b.group === 'navigation') return 1;
      return a.group.localeCompare(b.group);
    }
    return a.order - b.order || a.title.localeCompare(b.title);
  });
  return parsed.map((p) => p.command);
}
