/**
 * Turning what a sandboxed run reports (paths in the disposable copy, the compiler's and runner's
 * text) into places in the workspace and in the candidate's test code. No I/O and no editor: it
 * uses the engine's sandbox-path rules and language adapters, the same ones the engine reports with.
 */
import * as path from 'node:path';
import { mapSandboxPaths } from '../engine/execute/sandbox-paths';
import { adapterFor, LANGUAGE_IDS, type LanguageId } from '../engine/languages';

/**
 * A path the sandbox reported (absolute in the copy, or relative to the copy's root) as an absolute
 * workspace path and its '/'-separated path relative to the workspace folder.
 */
export function workspacePathOf(sandboxPath: string, workspaceRoot: string): { relPath: string; path: string } {
  const mapped = mapSandboxPaths(sandboxPath, workspaceRoot);
  const abs = path.isAbsolute(mapped) ? mapped : path.join(workspaceRoot, mapped);
  const relPath = path.relative(workspaceRoot, abs).split(path.sep).join('/');
  if (relPath.startsWith('../') || relPath === '..') throw new Error(`${sandboxPath} is outside the workspace folder ${workspaceRoot}`);
  return { relPath, path: abs };
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The first `<testFile>:<line>[:<col>]` in a compiler's or runner's output (`./x_test.go:12:5:`,
 * `--> tests/x.rs:3:9`, `x_spec.rb:14:in`), as a 1-based line and column in the test.
 */
export function locateInTest(output: string, testFileName: string): { line: number; column?: number } | undefined {
  const m = new RegExp(`(?:^|[\\s/(\\[])${escapeRegExp(testFileName)}:(\\d+)(?::(\\d+))?`, 'm').exec(output);
  if (!m) return undefined;
  return { line: Number(m[1]), ...(m[2] ? { column: Number(m[2]) } : {}) };
}

/**
 * The 1-based line declaring the test `name` in `code`: the whole name first, then its last segment
 * (a subtest `TestX/case`, a Rust path `tests::it_works`, an RSpec `Foo#bar works`), as a whole word.
 */
export function lineOfTest(code: string, name: string): number | undefined {
  const lines = code.split('\n');
  const candidates = [name, ...name.split(/\/|::|#|\.|\s+/).filter(Boolean).reverse()];
  for (const candidate of candidates) {
    const word = new RegExp(`(^|[^\\w])${escapeRegExp(candidate)}($|[^\\w])`);
    const at = lines.findIndex((l) => word.test(l));
    if (at >= 0) return at + 1;
  }
  return undefined;
}

/** The end of a long log (where the errors are), marked as cut. */
export function tailOf(text: string, maxChars: number): string {
  return text.length > maxChars ? `[… ${text.length - maxChars} characters cut]\n${text.slice(-maxChars)}` : text;
}

/** `Status` -> `status`, `QuoteOrder` -> `quote_order`, `by_title` stays. */
export function snakeCase(name: string): string {
  return name
    .replace(/[!?]$/, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9_]+/g, '_')
    .toLowerCase();
}

/**
 * Where an accepted test goes, by the language's conventions (its `editor.acceptedPlacement`,
 * languages/<id>/editor.ts), from where the run placed it: the run names files after a hash so nothing
 * collides; a project keeps names people read (Go: `<file>_<function>_test.go` next to the focal file).
 * A language without conventions keeps the run's place (PHP: already named after the test class).
 */
export function acceptedPlacement(
  language: string,
  runRelPath: string,
  runCode: string,
  focal: { relPath: string; functionName: string },
): { relPath: string; code: string; append: boolean; notes: string[] } {
  const dir = path.posix.dirname(runRelPath);
  const focalBase = path.posix.basename(focal.relPath).replace(/\.[^.]+$/, '');
  const place = (LANGUAGE_IDS as readonly string[]).includes(language) ? adapterFor(language as LanguageId).editor.acceptedPlacement : undefined;
  if (!place) return { relPath: runRelPath, code: runCode, append: false, notes: [] };
  return place({ relPath: runRelPath, code: runCode, dir, focalRelPath: focal.relPath, focalBase, fn: snakeCase(focal.functionName) });
}
