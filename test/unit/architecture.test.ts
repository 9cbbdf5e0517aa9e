import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';
import { REPO_ROOT } from '../helpers/paths';

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** The parts of src/: each top folder is one, with the parts it may never import from. */
type Part = 'engine' | 'server' | 'cli' | 'extension' | 'shared' | 'mcp';
const SRC = path.join(REPO_ROOT, 'src');

/**
 * Every module a file names: `import` (values and `import type`), `export … from`, `import x =
 * require()`, `require()`, `import()` and `import('…').T` types, as TypeScript's own scanner sees them.
 */
function specifiers(file: string): string[] {
  return ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true).importedFiles.map((f) => f.fileName);
}

/** The part a relative specifier of `file` lands in (undefined for packages and files outside src/). */
function partOf(file: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const rel = path.relative(SRC, path.resolve(path.dirname(file), specifier));
  return rel.startsWith('..') || path.isAbsolute(rel) ? undefined : rel.split(path.sep)[0];
}

/** `file → specifier` for each import in `from` that lands in one of `never`. */
function crossings(from: Part, never: Part[]): string[] {
  return sources(path.join(SRC, from)).flatMap((file) =>
    specifiers(file)
      .filter((s) => never.includes(partOf(file, s) as Part))
      .map((s) => `${path.relative(REPO_ROOT, file)} → ${s}`),
  );
}

/** Files of `part` that import the editor's API (`vscode`, or the language client or server packages built on it). */
function editorImports(part: Part): string[] {
  return sources(path.join(SRC, part))
    .filter((f) => specifiers(f).some((s) => /^vscode(-languageclient|-languageserver)?(\/|$)/.test(s)))
    .map((f) => path.relative(REPO_ROOT, f));
}

describe('architecture', () => {
  it('keeps src/engine free of vscode imports (it runs in plain Node, the CLI and the server)', () => {
    const offenders = sources(path.join(REPO_ROOT, 'src', 'engine')).filter((f) =>
      /from\s+['"]vscode(-languageclient|-languageserver)?(\/[^'"]*)?['"]|require\(['"]vscode['"]\)/.test(fs.readFileSync(f, 'utf8')),
    );
    assert.deepEqual(offenders, []);
  });

  it('ships compiled grammars for all five languages, not grammar packages', () => {
    for (const id of ['rust', 'go', 'php', 'ruby', 'julia']) assert.ok(fs.existsSync(path.join(REPO_ROOT, 'grammars', `${id}.wasm.gz`)), id);
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
    const deps = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies });
    assert.deepEqual(deps.filter((d) => /^tree-sitter-/.test(d)), []);
  });

  describe('the parts and their nevers (docs/architecture.md)', () => {
    it('sees every kind of import the checks below rely on', () => {
      // The scanner must catch type-only imports and re-exports, or the checks below pass vacuously.
      const probe = "import type { A } from '../engine/a'; export { B } from '../engine/b'; export * from '../engine/c';\n" +
        "type D = import('../engine/d').D; const e = require('../engine/e'); import f = require('../engine/f');";
      const found = ts.preProcessFile(probe, true, true).importedFiles.map((f) => f.fileName);
      assert.deepEqual(found, ['../engine/a', '../engine/b', '../engine/c', '../engine/d', '../engine/e', '../engine/f']);
      assert.equal(partOf(path.join(SRC, 'shared', 'x.ts'), '../engine/a'), 'engine');
      assert.equal(partOf(path.join(SRC, 'engine', 'x', 'y.ts'), '../z'), 'engine');
      assert.equal(partOf(path.join(SRC, 'engine', 'y.ts'), 'vscode'), undefined);
    });

    it('src/engine imports nothing from src/server, src/cli, src/extension, src/shared or src/mcp', () => {
      assert.deepEqual(crossings('engine', ['server', 'cli', 'extension', 'shared', 'mcp']), []);
    });

    it('src/mcp imports nothing from src/server, src/extension, src/shared or src/cli (the engine\'s tools over MCP, nothing of the editor\'s wire)', () => {
      assert.deepEqual(crossings('mcp', ['server', 'extension', 'shared', 'cli']), []);
      assert.deepEqual(editorImports('mcp'), []);
    });

    it('src/cli imports nothing from src/extension, src/server or src/shared, nor vscode (the command runs with no editor)', () => {
      assert.deepEqual(crossings('cli', ['extension', 'server', 'shared']), []);
      assert.deepEqual(editorImports('cli'), []);
    });

    it('src/server imports nothing from src/extension or src/cli, nor vscode itself (its process has no editor API)', () => {
      assert.deepEqual(crossings('server', ['extension', 'cli']), []);
      const vscode = sources(path.join(SRC, 'server')).filter((f) => specifiers(f).some((s) => /^vscode(\/|$)/.test(s)));
      assert.deepEqual(vscode, []);
    });

    it('src/extension imports nothing from src/engine (it reaches the engine through the server)', () => {
      assert.deepEqual(crossings('extension', ['engine']), []);
    });

    it('src/shared imports no engine value or type (the wire owns its types; the engine maps to them)', () => {
      assert.deepEqual(crossings('shared', ['engine']), []);
    });
  });
});
