import type { Node, Tree } from 'web-tree-sitter';
import { field, findDescendantOfType, lastStatement, named } from '../../parse/nodes';
import { describeFunction, inScriptDir, underDir, type FunctionInfo, type LanguageExtraction } from '../types';

const COMMENTS = new Set(['comment']);
/** Clauses of a method body that follow its statements. */
const BODY_CLAUSES = new Set(['rescue', 'else', 'ensure']);

interface Context {
  modules: string[];
  className: string;
  classSignature: string;
  singleton: boolean;
}

function signatureOf(source: string, method: Node): string {
  const end = field(method, 'parameters') ?? field(method, 'name') ?? method;
  return source.slice(method.startIndex, end.endIndex).replace(/\s+/g, ' ').trim();
}

function collect(container: Node, source: string, ctx: Context, out: FunctionInfo[]): void {
  for (const n of named(container)) {
    switch (n.type) {
      case 'method':
      case 'singleton_method': {
        const name = field(n, 'name')?.text ?? '';
        out.push(describeFunction(n, {
          name,
          signature: signatureOf(source, n),
          scope: ctx.modules.join('::'),
          className: ctx.className,
          classSignature: ctx.classSignature,
          extraMetadata: { method_kind: n.type === 'singleton_method' || ctx.singleton ? 'singleton' : 'instance' },
        }));
        break; // a def inside a method is not one of the file's methods
      }
      case 'module': {
        const name = field(n, 'name')?.text ?? '';
        collect(n, source, { ...ctx, modules: [...ctx.modules, name] }, out);
        break;
      }
      case 'class': {
        const name = field(n, 'name')?.text ?? '';
        const superclass = field(n, 'superclass');
        collect(n, source, {
          ...ctx,
          className: name,
          classSignature: `class ${name}${superclass ? ' ' + superclass.text.replace(/\s+/g, ' ') : ''}`,
          singleton: false,
        }, out);
        break;
      }
      case 'singleton_class':
        collect(n, source, { ...ctx, singleton: true }, out);
        break;
      default:
        // Blocks (`included do … end`, `Struct.new do … end`), begin/if bodies: defs there still belong here.
        if (n.namedChildCount > 0) collect(n, source, ctx, out);
    }
  }
}

function isRaise(n: Node): boolean {
  if (n.type === 'identifier') return n.text === 'raise' || n.text === 'fail';
  if (n.type !== 'call') return false;
  return !field(n, 'receiver') && /^(raise|fail)$/.test(field(n, 'method')?.text ?? '');
}

/** What the extractor needs to find focal functions in Ruby files (assembled in ./index.ts). */
export const rubyExtraction: LanguageExtraction = {
  id: 'ruby',
  displayName: 'Ruby',
  extensions: ['.rb'],
  scopeKey: 'module',
  commentTypes: COMMENTS,
  isTestFile: (p) => /_(spec|test)\.rb$/.test(p) || underDir(p, ['spec', 'test', 'testdata']),
  // Executables and example programs are run by hand, not loaded by the tests: nothing to test in place.
  ignoredByTool: (p) => inScriptDir(p, ['bin', 'exe', 'script', 'scripts', 'examples', 'example'], ['lib']),
  listFunctions(tree: Tree, source: string): FunctionInfo[] {
    const out: FunctionInfo[] = [];
    collect(tree.rootNode, source, { modules: [], className: '', classSignature: '', singleton: false }, out);
    return out;
  },
  hasOutput(fn: FunctionInfo): boolean {
    if (findDescendantOfType(fn.node, 'return')) return true;
    const body = field(fn.node, 'body');
    if (!body) return false;
    // An endless method (`def x = expr`) has the expression itself as its body.
    const statements = body.type === 'body_statement' ? named(body).filter((c) => !BODY_CLAUSES.has(c.type)) : [body];
    const last = lastStatement(statements, COMMENTS);
    return last !== null && last.type !== 'nil' && !isRaise(last);
  },
};
