import type { Node, Tree } from 'web-tree-sitter';
import { children, field, findDescendantOfType, headerText, lastStatement, named } from '../../parse/nodes';
import { chooseFeatures, evaluateCfg, hostArch, type Gate } from './cfg';
import { gatesOf, inheritedGates, innerGates, outerAttributes, type FileGates } from './gates';
import { FEATURES_KEY, NO_DEFAULT_FEATURES_KEY } from './configuration';
import { closeFeatures, type CargoFeatures } from './manifest';
import { describeFunction, underDir, type FunctionInfo, type LanguageExtraction } from '../types';

const COMMENTS = new Set(['line_comment', 'block_comment']);

/** A block's last child of these types is a statement, not a tail expression. */
const STATEMENTS = new Set([
  'let_declaration', 'empty_statement', 'attribute_item', 'inner_attribute_item', 'function_item',
  'struct_item', 'enum_item', 'union_item', 'impl_item', 'trait_item', 'mod_item', 'use_declaration',
  'const_item', 'static_item', 'type_item', 'macro_definition', 'extern_crate_declaration',
  'foreign_mod_item', 'function_signature_item',
]);
const DIVERGING_MACROS = new Set(['panic', 'todo', 'unimplemented', 'unreachable']);

const TEST_ATTRIBUTE = /^(test|bench|[\w:]+::test|cfg\(test\)|rstest)$/;

/** The outer attributes written just before an item (comments between them are skipped). */
function attributesBefore(node: Node): string[] {
  const out: string[] = [];
  for (let prev = node.previousNamedSibling; prev; prev = prev.previousNamedSibling) {
    if (COMMENTS.has(prev.type)) continue;
    if (prev.type !== 'attribute_item') break;
    out.push(prev.text.replace(/^#\[|\]$/g, '').replace(/\s+/g, ''));
  }
  return out;
}

function isTestAttributed(node: Node): boolean {
  return attributesBefore(node).some((a) => TEST_ATTRIBUTE.test(a));
}

interface Context {
  modules: string[];
  className: string;
  classSignature: string;
  inTest: boolean;
  /** cfg gates of the enclosing inline modules, impls and traits, outermost first. */
  gates: Gate[];
}

/** `Stack<T>` / `&'a Stack` / `crate::x::Stack` -> `Stack`. */
function typeName(type: Node | null): string {
  if (!type) return '';
  if (type.type === 'type_identifier' || type.type === 'primitive_type') return type.text;
  const inner = field(type, 'type') ?? field(type, 'name');
  if (inner) return typeName(inner);
  const id = findDescendantOfType(type, 'type_identifier');
  return id ? id.text : type.text;
}

/** Starts a trait's header at `trait`, leaving out its visibility (`pub trait Shape` -> `trait Shape`). */
function keywordStart(node: Node, keyword: string): Node {
  return children(node).find((c) => c.type === keyword) ?? node;
}

/** The gates of each function listed by `collect` (from its file's top level down to the item itself). */
const itemGates = new WeakMap<FunctionInfo, Gate[]>();

function collect(container: Node, source: string, ctx: Context, out: FunctionInfo[]): void {
  for (const n of named(container)) {
    switch (n.type) {
      case 'function_item': {
        const body = field(n, 'body');
        if (!body) break;
        const name = field(n, 'name')?.text ?? '';
        out.push(describeFunction(n, {
          name,
          signature: headerText(source, n, body),
          scope: ctx.modules.join('::'),
          className: ctx.className,
          classSignature: ctx.classSignature,
          isTestCode: ctx.inTest || isTestAttributed(n),
        }));
        itemGates.set(out[out.length - 1], [...ctx.gates, ...gatesOf(outerAttributes(n))]);
        break;
      }
      case 'mod_item': {
        const body = field(n, 'body');
        if (body) {
          const name = field(n, 'name')?.text ?? '';
          const gates = [...ctx.gates, ...gatesOf(outerAttributes(n)), ...innerGates(body)];
          collect(body, source, { ...ctx, modules: [...ctx.modules, name], inTest: ctx.inTest || isTestAttributed(n), gates }, out);
        }
        break;
      }
      case 'impl_item': {
        const body = field(n, 'body');
        if (body) {
          collect(body, source, {
            ...ctx,
            className: typeName(field(n, 'type')),
            classSignature: headerText(source, n, body),
            inTest: ctx.inTest || isTestAttributed(n),
            gates: [...ctx.gates, ...gatesOf(outerAttributes(n))],
          }, out);
        }
        break;
      }
      case 'trait_item': {
        const body = field(n, 'body');
        if (body) {
          collect(body, source, {
            ...ctx,
            className: field(n, 'name')?.text ?? '',
            classSignature: headerText(source, keywordStart(n, 'trait'), body),
            inTest: ctx.inTest || isTestAttributed(n),
            gates: [...ctx.gates, ...gatesOf(outerAttributes(n))],
          }, out);
        }
        break;
      }
      default:
        break;
    }
  }
}

function fileIsTestOnly(root: Node): boolean {
  return named(root).some((n) => n.type === 'inner_attribute_item' && /^#!\[\s*cfg\s*\(\s*test\s*\)\s*\]$/.test(n.text));
}

/** The block's tail expression, if the block ends in one (`x`, `if … { a } else { b }`, not `x;`). */
function tailExpression(block: Node): Node | null {
  const last = lastStatement(named(block), COMMENTS);
  if (!last || STATEMENTS.has(last.type)) return null;
  if (last.type === 'expression_statement') {
    const kids = children(last);
    if (kids[kids.length - 1]?.type === ';') return null;
    return named(last)[0] ?? null;
  }
  return last;
}

function isOutputExpression(expr: Node): boolean {
  if (expr.type === 'unit_expression') return false;
  if (expr.type === 'macro_invocation') {
    const macro = field(expr, 'macro')?.text ?? '';
    return !DIVERGING_MACROS.has(macro.replace(/^.*::/, ''));
  }
  return true;
}

function isFileGates(x: unknown): x is FileGates {
  return typeof x === 'object' && x !== null && Array.isArray((x as FileGates).gates) && 'manifest' in x;
}


/**
 * Features the item's gates need go on the record (metadata.cargo_features); an item no feature can
 * bring in under a Linux test build (another target, Miri, `cfg(any())`, a feature the crate does not
 * declare, a default feature that must be off) is marked for the counted `cfg-excluded` rule. One
 * built with those features only where the crate root's `#![feature]` applies is marked as needing a
 * nightly rustc (`nightly-only` where the toolchain is stable); an unknown condition is not.
 */
function applyGates(fn: FunctionInfo, gates: Gate[], manifest: CargoFeatures | null, nightly: Gate | null): void {
  const metadata: Record<string, string | string[]> = {};
  const base = { customCfgs: manifest?.buildScript ?? true, arch: hostArch() };
  let features: string[] = [];
  let noDefaultFeatures = false;
  if (gates.length) {
    const choice = chooseFeatures(gates, manifest?.declared ?? null, (f, d) => (manifest ? closeFeatures(manifest, f, d) : new Set()), base);
    ({ features, noDefaultFeatures } = choice);
    if (choice.features.length) metadata[FEATURES_KEY] = choice.features;
    if (choice.noDefaultFeatures) metadata[NO_DEFAULT_FEATURES_KEY] = 'true';
    if (choice.verdict === 'excluded') fn.excludedByConfiguration = choice.gate!.text;
  }
  if (nightly) {
    const enabled = manifest ? closeFeatures(manifest, features, !noDefaultFeatures) : null;
    if (evaluateCfg(nightly.cfg, { ...base, features: enabled }) === true) fn.needsNightly = nightly.text;
  }
  fn.extraMetadata = Object.keys(metadata).length ? metadata : undefined;
}

/** What the extractor needs to find focal functions in Rust files (assembled in ./index.ts). */
export const rustExtraction: LanguageExtraction = {
  id: 'rust',
  displayName: 'Rust',
  extensions: ['.rs'],
  scopeKey: 'module',
  commentTypes: COMMENTS,
  isTestFile: (p) => underDir(p, ['tests', 'benches', 'testdata']),
  // `cargo test` runs no test of a build script or of an example (examples are only built): a test
  // module placed there never runs, so their functions cannot be tasks.
  ignoredByTool: (p) => underDir(p, ['examples']) || (/(^|\/)build\.rs$/.test(p) && !/(^|\/)src\//.test(p)),
  // A binary's `fn main` (src/main.rs, src/bin/) is what the program runs: a test cannot call it
  // (the binary's other functions can be tested in a `#[cfg(test)] mod` beside them).
  isEntryPoint: (fn, relPath) => fn.bareName === 'main' && fn.className === '' && fn.scope === '' && /(^|\/)src\/(main\.rs$|bin\/)/.test(relPath),
  inheritedContext: inheritedGates,
  listFunctions(tree: Tree, source: string, _fileScope?: string, inherited?: unknown): FunctionInfo[] {
    const out: FunctionInfo[] = [];
    const crate = isFileGates(inherited) ? inherited : null;
    // A file declared by `#[cfg(test)] mod tests;` is test code like an inline `#[cfg(test)] mod`.
    const inTest = fileIsTestOnly(tree.rootNode) || (crate?.gates.some((g) => g.cfg.kind === 'name' && g.cfg.name === 'test') ?? false);
    const fileGates = [...(crate?.gates ?? []), ...innerGates(tree.rootNode)];
    collect(tree.rootNode, source, { modules: [], className: '', classSignature: '', inTest, gates: [] }, out);
    for (const fn of out) applyGates(fn, [...fileGates, ...(itemGates.get(fn) ?? [])], crate?.manifest ?? null, crate?.nightly ?? null);
    return out;
  },
  hasOutput(fn: FunctionInfo): boolean {
    if (findDescendantOfType(fn.node, 'return_expression')) return true;
    const body = field(fn.node, 'body');
    const tail = body ? tailExpression(body) : null;
    return tail !== null && isOutputExpression(tail);
  },
};
