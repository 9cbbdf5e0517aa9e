import type { Node, Tree } from 'web-tree-sitter';
import { field, findDescendantOfType, headerText, named } from '../../parse/nodes';
import { nestedManifestDir } from '../nested-project';
import { describeFunction, underDir, type FunctionInfo, type LanguageExtraction } from '../types';

const COMMENTS = new Set(['comment']);

function receiverType(method: Node): Node | null {
  const receiver = field(method, 'receiver');
  const param = receiver ? named(receiver).find((n) => n.type === 'parameter_declaration') : undefined;
  return param ? field(param, 'type') : null;
}

/** `*Stack[T]` -> `Stack`. */
function baseTypeName(type: Node): string {
  if (type.type === 'type_identifier') return type.text;
  const id = findDescendantOfType(type, 'type_identifier');
  return id ? id.text : type.text;
}

/** What the extractor needs to find focal functions in Go files (assembled in ./index.ts). */
export const goExtraction: LanguageExtraction = {
  id: 'go',
  displayName: 'Go',
  extensions: ['.go'],
  scopeKey: 'package',
  commentTypes: COMMENTS,
  isTestFile: (p) => p.endsWith('_test.go') || underDir(p, ['testdata']),
  // `go build ./...` skips folders whose names start with `_` or `.`, and `testdata` (go help packages).
  ignoredByTool: (p) => p.split('/').slice(0, -1).some((d) => d.startsWith('_') || d.startsWith('.') || d === 'testdata'),
  // `go test ./...` at the root skips a folder with its own go.mod (another module, often with its own
  // dependencies: example programs); a test there is that module's business, opened as its own folder.
  nestedProject: (root, p) => nestedManifestDir(root, p, 'go.mod'),
  // init cannot be referred to at all, and main is the program's entry point: neither is a unit to test.
  isEntryPoint: (fn) => fn.node.type === 'function_declaration' && (fn.bareName === 'init' || fn.bareName === 'main'),
  listFunctions(tree: Tree, source: string): FunctionInfo[] {
    const root = tree.rootNode;
    const pkgClause = named(root).find((n) => n.type === 'package_clause');
    const pkg = pkgClause ? (named(pkgClause)[0]?.text ?? '') : '';
    const out: FunctionInfo[] = [];
    for (const n of named(root)) {
      if (n.type !== 'function_declaration' && n.type !== 'method_declaration') continue;
      const body = field(n, 'body');
      if (!body) continue; // an assembly-backed declaration has no body
      const name = field(n, 'name')?.text ?? '';
      const recv = n.type === 'method_declaration' ? receiverType(n) : null;
      out.push(describeFunction(n, {
        name,
        signature: headerText(source, n, body),
        scope: pkg,
        className: recv ? baseTypeName(recv) : '',
        classSignature: recv ? recv.text : '',
      }));
    }
    return out;
  },
  hasOutput: (fn) => findDescendantOfType(fn.node, 'return_statement') !== null,
};
