import type { Node, Tree } from 'web-tree-sitter';
import { children, field, findDescendantOfType, headerText, named } from '../../parse/nodes';
import { describeFunction, inScriptDir, underDir, type FunctionInfo, type LanguageExtraction } from '../types';

const COMMENTS = new Set(['comment']);
const CLASS_LIKE = new Set(['class_declaration', 'trait_declaration', 'interface_declaration', 'enum_declaration']);
/** Function bodies: definitions inside them are not the file's functions. */
const FUNCTION_LIKE = new Set(['function_definition', 'method_declaration', 'anonymous_function', 'arrow_function']);
/** Subtrees that hold no named declarations of their own (anonymous classes belong to an expression). */
const NOT_DECLARATIONS = new Set(['object_creation_expression', 'anonymous_class', 'text', 'php_tag']);

interface Context {
  namespace: string;
  className: string;
  classSignature: string;
  isTestClass: boolean;
}

/** `final class X extends Y implements I, J`, `trait T`, `interface I extends J`, `enum E: string`. */
function classSignature(source: string, decl: Node): string {
  const body = field(decl, 'body');
  const first = children(decl).find((c) => c.type !== 'attribute_list' && c.type !== 'comment') ?? decl;
  return headerText(source, first, body);
}

function extendsTestCase(decl: Node): boolean {
  const base = named(decl).find((c) => c.type === 'base_clause');
  return !!base && named(base).some((n) => /(^|\\)TestCase$/.test(n.text));
}

function hidden(method: Node): boolean {
  if (!field(method, 'body')) return true;
  return children(method).some(
    (c) => c.type === 'abstract_modifier' || (c.type === 'visibility_modifier' && /^(private|protected)/i.test(c.text)),
  );
}

function collect(container: Node, source: string, ctx: Context, out: FunctionInfo[]): void {
  for (const n of named(container)) {
    if (n.type === 'namespace_definition') {
      const name = field(n, 'name')?.text ?? '';
      const body = field(n, 'body');
      // `namespace X;` applies to the declarations after it; `namespace X { … }` to its block.
      if (body) collect(body, source, { ...ctx, namespace: name }, out);
      else ctx = { ...ctx, namespace: name };
    } else if (CLASS_LIKE.has(n.type)) {
      const body = field(n, 'body');
      if (body) {
        collect(body, source, {
          ...ctx,
          className: field(n, 'name')?.text ?? '',
          classSignature: classSignature(source, n),
          isTestClass: extendsTestCase(n),
        }, out);
      }
    } else if (n.type === 'function_definition' || n.type === 'method_declaration') {
      const body = field(n, 'body');
      const name = field(n, 'name')?.text ?? '';
      const first = children(n).find((c) => c.type !== 'attribute_list' && c.type !== 'comment') ?? n;
      out.push(describeFunction(n, {
        name,
        signature: headerText(source, first, body).replace(/;$/, ''),
        scope: ctx.namespace,
        className: n.type === 'method_declaration' ? ctx.className : '',
        classSignature: n.type === 'method_declaration' ? ctx.classSignature : '',
        isTestCode: n.type === 'method_declaration' && ctx.isTestClass,
        isHiddenMethod: n.type === 'method_declaration' && hidden(n),
        hasNoBody: n.type === 'method_declaration' && !body,
      }));
    } else if (!FUNCTION_LIKE.has(n.type) && !NOT_DECLARATIONS.has(n.type)) {
      // Conditional declarations (`if (!function_exists('f')) { function f() … }`) are still the file's.
      collect(n, source, ctx, out);
    }
  }
}

/** What the extractor needs to find focal functions in Php files (assembled in ./index.ts). */
export const phpExtraction: LanguageExtraction = {
  id: 'php',
  displayName: 'PHP',
  extensions: ['.php'],
  scopeKey: 'namespace',
  commentTypes: COMMENTS,
  isTestFile: (p) => /Test\.php$/.test(p) || underDir(p, ['test', 'tests', 'Test', 'Tests', 'testdata']),
  // Console scripts and example programs run by hand, and web front controllers (`public/index.php`),
  // which do their work when included: no test loads them to call a function.
  ignoredByTool: (p) => inScriptDir(p, ['bin', 'examples', 'example'], ['src', 'lib']) || /^((public|web|htdocs|www)\/)?index\.php$/.test(p),
  listFunctions(tree: Tree, source: string): FunctionInfo[] {
    const out: FunctionInfo[] = [];
    collect(tree.rootNode, source, { namespace: '', className: '', classSignature: '', isTestClass: false }, out);
    return out;
  },
  hasOutput: (fn) => findDescendantOfType(fn.node, 'return_statement') !== null,
};
