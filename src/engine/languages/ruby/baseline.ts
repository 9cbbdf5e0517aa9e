import type { Node } from 'web-tree-sitter';
import { field, named } from '../../parse/nodes';
import type { TaskRecord } from '../../tasks/record';
import { enclosing, guessFromName, indent, LITERAL, withFocalSite, type Guess } from '../../generate/baseline/common';

/*
 * Ruby baseline: an RSpec example (spec_helper loads the project) that calls the focal method once
 * inside `expect { … }.not_to raise_error`. Ruby records no parameter types, so a value per parameter
 * is guessed from how the method body uses it (`rows.each` is a list, `days <= 0` a number,
 * `text.strip` a string), then from its name; what stays unknown gets an RSpec null-object double,
 * which answers every message. Optional and keyword parameters with defaults keep their defaults.
 * The receiver is `Owner.new(…)` with `initialize`'s parameters built the same way, the owner itself
 * for singleton methods and `module_function`s, and an object extended with the module for other
 * module methods. The example group is named by a string, so a constant that fails to load fails the
 * example instead of the whole file.
 */

const LIST_METHODS = new Set(['each', 'each_with_index', 'map', 'select', 'reject', 'each_slice', 'first', 'last', 'sort', 'sort_by', 'uniq', 'flat_map', 'reduce', 'inject', 'sum', 'push', 'pop', 'zip', 'compact', 'flatten', 'min', 'max', 'each_with_object', 'filter_map', 'group_by', 'partition', 'take', 'drop', 'any?', 'all?', 'none?']);
const MAP_METHODS = new Set(['each_pair', 'keys', 'values', 'fetch', 'key?', 'dig', 'merge', 'transform_values', 'transform_keys', 'each_key', 'each_value', 'has_key?']);
const INT_METHODS = new Set(['times', 'upto', 'downto', 'zero?', 'positive?', 'negative?', 'even?', 'odd?', 'abs', 'floor', 'ceil', 'round', 'to_f', 'succ', 'pred', 'divmod']);
const STRING_METHODS = new Set(['strip', 'downcase', 'upcase', 'split', 'gsub', 'sub', 'start_with?', 'end_with?', 'match?', 'chars', 'each_char', 'scan', 'tr', 'capitalize', 'lstrip', 'rstrip', 'chomp', 'squeeze', 'bytes', 'each_line', 'lines', 'encoding', 'force_encoding', 'unpack', 'ljust', 'rjust', 'center']);
const COMPARISONS = new Set(['<', '<=', '>', '>=', '+', '-', '*', '/', '%', '**']);
const BINARY_OPERATORS = new Set(['==', '!=', '<', '<=', '>', '>=', '<=>', '+', '-', '*', '/', '%', '**', '<<', '>>', '&', '|', '^', '===', '=~']);

/** How the focal body uses a parameter, as far as it tells its kind. */
function guessFromUse(name: string, body: Node): Guess {
  const votes = new Map<Guess, number>();
  const vote = (g: Guess) => votes.set(g, (votes.get(g) ?? 0) + 1);
  for (const call of body.descendantsOfType('call')) {
    const receiver = call ? field(call, 'receiver') : null;
    if (!call || receiver?.type !== 'identifier' || receiver.text !== name) continue;
    const method = field(call, 'method')?.text ?? '';
    if (LIST_METHODS.has(method)) vote('list');
    else if (MAP_METHODS.has(method)) vote('map');
    else if (INT_METHODS.has(method)) vote('int');
    else if (STRING_METHODS.has(method)) vote('string');
  }
  for (const bin of body.descendantsOfType('binary')) {
    if (!bin || !COMPARISONS.has(field(bin, 'operator')?.text ?? '')) continue;
    const [l, r] = [field(bin, 'left'), field(bin, 'right')];
    const other = l?.type === 'identifier' && l.text === name ? r : r?.type === 'identifier' && r.text === name ? l : null;
    if (other?.type === 'integer') vote('int');
    else if (other?.type === 'float') vote('float');
  }
  for (const ref of body.descendantsOfType('element_reference')) {
    const object = ref ? field(ref, 'object') : null;
    if (!ref || object?.type !== 'identifier' || object.text !== name) continue;
    const key = named(ref)[1];
    vote(key?.type === 'simple_symbol' || key?.type === 'string' ? 'map' : 'list');
  }
  let best: Guess = 'unknown';
  let most = 0;
  for (const [g, n] of votes) if (n > most) [best, most] = [g, n];
  return best;
}

function valueFor(name: string, body: Node | null): string {
  const guess = body ? guessFromUse(name, body) : 'unknown';
  switch (guess === 'unknown' ? guessFromName(name) : guess) {
    case 'list':
      return '[]';
    case 'map':
      return '{}';
    case 'int':
      return LITERAL.int;
    case 'float':
      return LITERAL.float;
    case 'string':
      return rubyString(LITERAL.string);
    case 'bool':
      return 'false';
    default:
      return `double(${rubyString(name)}).as_null_object`;
  }
}

/** A single-quoted Ruby string: nothing in it is interpolated. */
function rubyString(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** Positional arguments and required keywords for a method's parameters. */
function argumentsFor(method: Node | null): string[] {
  if (!method) return [];
  const params = field(method, 'parameters');
  const body = field(method, 'body');
  const out: string[] = [];
  for (const p of params ? named(params) : []) {
    if (p.type === 'identifier') out.push(valueFor(p.text, body));
    else if (p.type === 'destructured_parameter') out.push('[]');
    else if (p.type === 'keyword_parameter' && !field(p, 'value')) {
      const key = field(p, 'name')?.text ?? '';
      out.push(`${key}: ${valueFor(key, body)}`);
    }
  }
  return out;
}

/** A module body that makes its methods callable on the module itself. */
function callableOnModule(module: Node): boolean {
  const body = field(module, 'body') ?? module;
  return named(body).some((s) => /^(module_function|extend\s+self)\b/.test(s.text));
}

/** The call written for the method name: `r.m(args)`, `r.x = v`, `r == v`, `r[i]`. */
function callOn(receiver: string, name: string, args: string[]): string {
  if (/^[A-Za-z_]\w*=$/.test(name)) return `${receiver}.${name.slice(0, -1)} = ${args[0] ?? 'nil'}`;
  if (name === '[]') return `${receiver}[${args.join(', ')}]`;
  if (BINARY_OPERATORS.has(name) && args.length === 1) return `${receiver} ${name} ${args[0]}`;
  if (name === '-@' || name === '+@' || name === '!' || name === '~') return `${name.replace('@', '')}${receiver}`;
  return args.length ? `${receiver}.${name}(${args.join(', ')})` : `${receiver}.${name}`;
}

export async function rubyBaselineTest(task: TaskRecord): Promise<string> {
  return withFocalSite(task, 'ruby', ['method', 'singleton_method'], (fn) => field(fn, 'name')?.text ?? null, ({ fn }) => {
    const name = field(fn, 'name')?.text ?? task.function_name;
    const scope = (task.metadata.module as string | undefined) ?? '';
    const className = task.metadata.class_name;
    const owner = className ? (scope ? `${scope}::${className}` : className) : scope;
    const singleton = task.metadata.method_kind === 'singleton' || fn.type === 'singleton_method' || enclosing(fn, new Set(['singleton_class'])) !== null;
    const args = argumentsFor(fn);

    let call: string;
    let description: string;
    const classNode = enclosing(fn, new Set(['class']));
    const initialize = () =>
      (classNode ? named(field(classNode, 'body') ?? classNode) : []).find((m) => m.type === 'method' && field(m, 'name')?.text === 'initialize') ?? null;
    if (!owner) {
      call = callOn('self', name, args).replace(/^self\./, '');
      description = name;
    } else if (name === 'initialize' && className) {
      call = `${owner}.new(${args.join(', ')})`;
      description = `${owner}.new`;
    } else if (singleton) {
      call = callOn(owner, name, args);
      description = `${owner}.${name}`;
    } else if (className) {
      const ctorArgs = argumentsFor(initialize());
      call = callOn(`${owner}.new${ctorArgs.length ? `(${ctorArgs.join(', ')})` : ''}`, name, args);
      description = `${owner}#${name}`;
    } else {
      const module = enclosing(fn, new Set(['module']));
      call = callOn(module && callableOnModule(module) ? owner : `Object.new.extend(${owner})`, name, args);
      description = `${owner}.${name}`;
    }
    return [
      '# frozen_string_literal: true',
      '',
      "require 'spec_helper'",
      '',
      `# Baseline (a lower bound, not a model): calls ${description} once with values built from its`,
      '# parameters; it passes when the call returns without raising.',
      `RSpec.describe ${rubyString(`${description} (baseline)`)} do`,
      `  it 'returns without raising' do`,
      indent(`expect { ${call} }.not_to raise_error`, '    '),
      '  end',
      'end',
      '',
    ].join('\n');
  });
}
