import { strict as assert } from 'node:assert';
import { builtinModules } from 'node:module';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';
import { generationSettings } from '../../src/cli/generation-options';
import { CONTEXT_MODE_NAMES, PROVIDER_KIND_NAMES } from '../../src/cli/generation-flags';
import { CONTEXT_MODES } from '../../src/engine/context/modes';
import { PROVIDER_KINDS } from '../../src/engine/generate/options';
import { REPO_ROOT } from '../helpers/paths';

/**
 * What a module loads when it loads (its static value imports, followed through our own files), as
 * esbuild bundles them: `import type`, type-only names and `import()` are left out (an `import()`
 * becomes a chunk of its own, loaded when the code reaches it). Packages by name, our files by path.
 */
function loadedWith(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string): void => {
    if (files.has(file)) return;
    files.add(file);
    const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, false);
    for (const statement of source.statements) {
      let specifier: ts.Expression | undefined;
      if (ts.isImportDeclaration(statement)) {
        const clause = statement.importClause;
        if (clause?.isTypeOnly) continue;
        const bindings = clause?.namedBindings;
        // `import { type A }` alone loads nothing; a default or namespace import, or any value name, does.
        if (clause && !clause.name && bindings && ts.isNamedImports(bindings) && bindings.elements.every((e) => e.isTypeOnly)) continue;
        specifier = statement.moduleSpecifier;
      } else if (ts.isExportDeclaration(statement)) {
        if (statement.isTypeOnly || !statement.moduleSpecifier) continue;
        if (statement.exportClause && ts.isNamedExports(statement.exportClause) && statement.exportClause.elements.every((e) => e.isTypeOnly)) continue;
        specifier = statement.moduleSpecifier;
      } else if (ts.isImportEqualsDeclaration(statement) && ts.isExternalModuleReference(statement.moduleReference)) {
        specifier = statement.moduleReference.expression;
      }
      if (!specifier || !ts.isStringLiteral(specifier)) continue;
      const name = specifier.text;
      if (!name.startsWith('.')) {
        packages.add(name.startsWith('@') ? name.split('/').slice(0, 2).join('/') : name.split('/')[0]);
        continue;
      }
      if (name.endsWith('.json')) continue; // data (package.json), bundled as it is
      const base = path.resolve(path.dirname(file), name.replace(/\.js$/, ''));
      const found = [`${base}.ts`, path.join(base, 'index.ts')].find((f) => fs.existsSync(f));
      if (!found) throw new Error(`${path.relative(REPO_ROOT, file)}: cannot resolve ${name}`);
      visit(found);
    }
  };
  visit(entry);
  return { files, packages };
}

const CLI = path.join(REPO_ROOT, 'src', 'cli');
const isBuiltin = (name: string): boolean => name.startsWith('node:') || builtinModules.includes(name);

describe("the CLI's start: each verb loads what it uses (docs/architecture.md, the CLI bundle)", () => {
  it('the program and every verb\'s flags load commander and Node only, none of the engine\'s libraries', () => {
    const { files, packages } = loadedWith(path.join(CLI, 'bin.ts'));
    assert.deepEqual([...packages].filter((p) => !isBuiltin(p)).sort(), ['commander'], `loaded with the CLI's flags: ${[...files].map((f) => path.relative(REPO_ROOT, f)).join(', ')}`);
    // The verbs' work is not among them: each action imports its module when it runs.
    for (const work of ['run-command', 'extract-command', 'bench-command', 'report-command', 'mcp-command', 'worker-command', 'queue-command']) {
      assert.ok(!files.has(path.join(CLI, `${work}.ts`)), `${work}.ts is loaded with the flags`);
    }
    for (const engine of ['languages/index.ts', 'parse/grammars.ts', 'execute/docker.ts', 'execute/local.ts', 'environment.ts']) {
      assert.ok(!files.has(path.join(REPO_ROOT, 'src', 'engine', engine)), `src/engine/${engine} is loaded with the flags`);
    }
  });

  it("a local `run` loads no queue, container client, model SDK or MCP server", () => {
    const { packages } = loadedWith(path.join(CLI, 'run-command.ts'));
    const heavy = ['bullmq', 'ioredis', 'dockerode', '@anthropic-ai/sdk', 'openai', '@modelcontextprotocol/sdk', 'vscode-jsonrpc', 'vscode-languageserver-protocol'];
    assert.deepEqual(heavy.filter((p) => packages.has(p)), []);
  });

  it('the scanner follows what esbuild bundles: values and re-exports, not types', () => {
    // generation-options.ts imports the flags' interface only as a type: generation-flags.ts is not loaded with it.
    const { files } = loadedWith(path.join(CLI, 'generation-options.ts'));
    assert.ok(!files.has(path.join(CLI, 'generation-flags.ts')));
    assert.ok(files.has(path.join(REPO_ROOT, 'src', 'engine', 'generate', 'options.ts')));
    assert.equal(typeof generationSettings, 'function');
  });

  it("the flags' lists of context modes and providers are the registries' (they are copied so --help loads neither)", () => {
    assert.deepEqual([...CONTEXT_MODE_NAMES], [...CONTEXT_MODES], 'src/cli/generation-flags.ts CONTEXT_MODE_NAMES: the order of context/modes/index.ts');
    assert.deepEqual([...PROVIDER_KIND_NAMES], [...PROVIDER_KINDS], 'src/cli/generation-flags.ts PROVIDER_KIND_NAMES: the order of generate/options.ts');
  });
});
