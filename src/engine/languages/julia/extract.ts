import * as path from 'node:path';
import type { Node, Tree } from 'web-tree-sitter';
import { field, findDescendantOfType, lastStatement, named } from '../../parse/nodes';
import { juliaProjectName } from './project';
import { describeFunction, inScriptDir, underDir, type FunctionInfo, type LanguageExtraction } from '../types';

const COMMENTS = new Set(['line_comment', 'block_comment']);
/** Top-level statement containers whose definitions still belong to the file (not function bodies). */
const CONTAINERS = new Set([
  'module_definition', 'macrocall_expression', 'macro_argument_list', 'compound_statement', 'if_statement',
  'elseif_clause', 'else_clause', 'let_statement', 'quote_statement',
]);
/** Wrappers around a definition's call: `f(x)::T`, `f(x) where T`. */
const CALL_WRAPPERS = new Set(['typed_expression', 'where_expression']);

/** The `f(x)` call inside a signature or left-hand side, through `::T` and `where` wrappers. */
function callOf(n: Node | null): Node | null {
  while (n && CALL_WRAPPERS.has(n.type)) n = named(n)[0] ?? null;
  return n && n.type === 'call_expression' ? n : null;
}

function describe(node: Node, call: Node, header: string, modules: string[], pkg: string): FunctionInfo {
  const callee = named(call)[0];
  const name = callee ? callee.text : '';
  return describeFunction(node, {
    name,
    // `Base.show` -> `show`, `Foo{T}` -> `Foo`: what a call in a test names.
    bareName: name.replace(/\{.*$/s, '').replace(/^.*\./, ''),
    signature: header.replace(/\s+/g, ' ').trim(),
    // Files `include`d into the package module name no module: they are the package's.
    scope: (pkg && modules[0] !== pkg ? [pkg, ...modules] : modules).join('.'),
    className: '',
    classSignature: '',
  });
}

function collect(container: Node, source: string, modules: string[], pkg: string, out: FunctionInfo[]): void {
  for (const n of named(container)) {
    if (n.type === 'function_definition') {
      const signature = named(n).find((c) => c.type === 'signature');
      const call = callOf(signature ? named(signature)[0] ?? null : null);
      // `function f end` declares a generic function with no method: nothing to test.
      if (call && signature) out.push(describe(n, call, source.slice(n.startIndex, signature.endIndex), modules, pkg));
    } else if (n.type === 'assignment') {
      const lhs = named(n)[0];
      const call = callOf(lhs ?? null);
      if (call && lhs) out.push(describe(n, call, lhs.text, modules, pkg));
    } else if (n.type === 'module_definition') {
      const name = field(n, 'name')?.text ?? '';
      collect(n, source, [...modules, name], pkg, out);
    } else if (CONTAINERS.has(n.type)) {
      collect(n, source, modules, pkg, out);
    }
  }
}

const projectNames = new Map<string, string>();

/** The `name` in the nearest Project.toml above a file under that project's `src/` ('' elsewhere). */
function packageModule(root: string, relPath: string): string {
  const parts = relPath.split('/');
  for (let i = parts.length - 1; i >= 0; i--) {
    if (parts[i] !== 'src') continue;
    const projectDir = path.join(root, ...parts.slice(0, i));
    let name = projectNames.get(projectDir);
    if (name === undefined) {
      name = juliaProjectName(projectDir);
      projectNames.set(projectDir, name);
    }
    if (name) return name;
  }
  return '';
}

function isOutputExpression(expr: Node | null): boolean {
  if (!expr) return false;
  if (expr.type === 'identifier' && expr.text === 'nothing') return false;
  if (expr.type === 'call_expression') {
    const callee = named(expr)[0]?.text ?? '';
    if (callee === 'throw' || callee === 'error') return false;
  }
  return true;
}

/** What the extractor needs to find focal functions in Julia files (assembled in ./index.ts). */
export const juliaExtraction: LanguageExtraction = {
  id: 'julia',
  displayName: 'Julia',
  extensions: ['.jl'],
  scopeKey: 'module',
  commentTypes: COMMENTS,
  isTestFile: (p) => underDir(p, ['test', 'testdata']),
  // Executables and example programs are run by hand, not loaded by the tests: nothing to test in place.
  ignoredByTool: (p) => inScriptDir(p, ['bin', 'script', 'scripts', 'examples', 'example'], ['src']),
  // A compiled app's entry (PackageCompiler's `julia_main`) or a script's `(@main)`: the program runs it.
  isEntryPoint: (fn) => fn.bareName === 'julia_main' || fn.bareName === '@main' || fn.name === '(@main)',
  listFunctions(tree: Tree, source: string, fileScope = ''): FunctionInfo[] {
    const out: FunctionInfo[] = [];
    collect(tree.rootNode, source, [], fileScope, out);
    return out;
  },
  fileScope: packageModule,
  hasOutput(fn: FunctionInfo): boolean {
    if (findDescendantOfType(fn.node, 'return_statement')) return true;
    if (fn.node.type === 'assignment') {
      const parts = named(fn.node).filter((c) => c.type !== 'operator');
      return isOutputExpression(parts.length > 1 ? parts[parts.length - 1] : null);
    }
    const body = named(fn.node).filter((c) => c.type !== 'signature');
    return isOutputExpression(lastStatement(body, COMMENTS));
  },
};
