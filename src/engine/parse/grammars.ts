import * as fs from 'node:fs';
import * as path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Language, Parser } from 'web-tree-sitter';
import type { LanguageId } from '../languages/ids';
import { resourceRoot } from '../util/resources';
import { limitWasmTierUpFor } from './wasm-tiering';

export { LANGUAGE_IDS, type LanguageId } from '../languages/ids';

let runtimeReady: Promise<void> | undefined;
const languages = new Map<LanguageId, Promise<Language>>();

/** The tree-sitter runtime's own .wasm: copied next to the bundles by esbuild.mjs, else from node_modules. */
function runtimeWasm(): string {
  const bundled = path.join(resourceRoot(), 'dist', 'tree-sitter.wasm');
  if (fs.existsSync(bundled)) return bundled;
  return require.resolve('web-tree-sitter/tree-sitter.wasm');
}

function initRuntime(): Promise<void> {
  runtimeReady ??= Parser.init({ locateFile: () => runtimeWasm() } as never);
  return runtimeReady;
}

/** Loads a shipped grammar (grammars/<id>.wasm.gz, see grammars/VERSIONS.md) once per process. */
export function loadLanguage(id: LanguageId): Promise<Language> {
  let lang = languages.get(id);
  if (!lang) {
    lang = initRuntime().then(() => {
      const file = path.join(resourceRoot(), 'grammars', `${id}.wasm.gz`);
      const wasm = gunzipSync(fs.readFileSync(file));
      // Before it is compiled: no minutes of TurboFan for a huge lexer (Julia's; wasm-tiering.ts).
      limitWasmTierUpFor(wasm);
      return Language.load(wasm);
    });
    languages.set(id, lang);
  }
  return lang;
}

/** A parser per language, reused: creating one per file costs more than parsing small files. */
const parsers = new Map<LanguageId, Parser>();

export async function parserFor(id: LanguageId): Promise<Parser> {
  let parser = parsers.get(id);
  if (!parser) {
    const lang = await loadLanguage(id);
    parser = new Parser();
    parser.setLanguage(lang);
    parsers.set(id, parser);
  }
  return parser;
}
