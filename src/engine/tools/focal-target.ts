import * as fs from 'node:fs';
import { classifyDocument, taskForDocumentFunction, type DocumentFunction } from '../extract/document';
import { DEFAULT_MAX_FILE_BYTES } from '../extract/extract';
import { refusalOf } from '../extract/targeting';
import { adapterForPath, languageChoice, type LanguageAdapter } from '../languages';
import { lineStartOffsets, sliceLines } from '../parse/nodes';
import type { TaskRecord } from '../tasks/record';
import { ToolArgumentError } from './errors';
import type { ToolServices } from './services';

/** A source file of the workspace an agent named, with its language and current text. */
export interface SourceFile {
  abs: string;
  relPath: string;
  adapter: LanguageAdapter;
  text: string;
}

/** The function a tool works on, as a task of the workspace (the repository is the workspace root). */
export interface FocalTarget extends SourceFile {
  root: string;
  task: TaskRecord;
}

/** How an agent names a function: its name in a file, and a line inside it where the name is not enough. */
export interface FunctionSelector {
  file: string;
  function: string;
  line?: number;
}

/** The source file argument `file`, inside the workspace and in a language the engine knows. */
export function sourceFileOf(services: ToolServices, file: string): SourceFile {
  const { abs, relPath } = services.workspace.resolve('file', file, 'file');
  const adapter = adapterForPath(relPath);
  if (!adapter) throw new ToolArgumentError(`file: ${relPath} is not a ${languageChoice()} source file; pass one (focal_functions lists a file's functions)`);
  // The size extraction skips: a generated or vendored file, not code to test function by function.
  if (fs.statSync(abs).size > DEFAULT_MAX_FILE_BYTES) throw new ToolArgumentError(`file: ${relPath} is larger than ${DEFAULT_MAX_FILE_BYTES / 1024 / 1024} MiB; pass a source file written by people`);
  return { abs, relPath, adapter, text: services.readText?.(abs) ?? fs.readFileSync(abs, 'utf8') };
}

/** `Restock (line 58), Status (line 7)`: what an agent can pass instead. */
function listed(fns: readonly DocumentFunction[], max = 40): string {
  const shown = fns.slice(0, max).map((f) => `${f.name} (line ${f.startLine})`);
  return shown.join(', ') + (fns.length > max ? `, and ${fns.length - max} more` : '');
}

/** The one function the selector names, or why none: a ToolArgumentError naming the ones there are. */
function pick(fns: readonly DocumentFunction[], sel: FunctionSelector, relPath: string): DocumentFunction {
  const named = fns.filter((f) => f.name === sel.function);
  const testable = fns.filter((f) => f.untestable === null);
  if (!named.length) {
    const what = testable.length ? `its testable functions are ${listed(testable)}` : 'it has no function a unit test can call';
    throw new ToolArgumentError(`function: no function named ${JSON.stringify(sel.function)} in ${relPath}; ${what}. Pass one of those names as function`);
  }
  if (sel.line !== undefined) {
    const at = named.find((f) => f.startLine <= sel.line! && sel.line! <= f.endLine);
    if (!at) throw new ToolArgumentError(`line: no function ${sel.function} spans line ${sel.line} of ${relPath}; it is at ${named.map((f) => `lines ${f.startLine}-${f.endLine}`).join(', ')}. Pass a line inside the one you mean`);
    return at;
  }
  if (named.length > 1) throw new ToolArgumentError(`function: ${relPath} has ${named.length} functions named ${sel.function}, at lines ${named.map((f) => f.startLine).join(', ')}; pass line (any line inside the one you mean)`);
  return named[0];
}

/** A function an agent named, found in its file as it is now. */
export interface FoundFunction extends SourceFile {
  fn: DocumentFunction;
  /** Its lines as they are now (what a task's `focal_code` holds). */
  focalCode: string;
}

/**
 * The function an agent names: any function a test can call, inside the benchmark's filter or not
 * (as the editor's palette command); one no test can call is refused with the reason and what to do
 * instead. Reads and parses only (no task record: that asks git about the repository).
 */
export async function findFunction(services: ToolServices, sel: FunctionSelector): Promise<FoundFunction> {
  const source = sourceFileOf(services, sel.file);
  const fns = await classifyDocument(source.relPath, source.text, services.filters, services.workspace.root);
  const fn = pick(fns, sel, source.relPath);
  if (fn.untestable !== null) throw new ToolArgumentError(`function: ${refusalOf(fn, source.relPath, source.adapter.displayName)}`);
  return { ...source, fn, focalCode: sliceLines(source.text, lineStartOffsets(source.text), fn.startLine, fn.endLine) };
}

/** The function an agent names (see findFunction) as a task of the workspace: the repository is the workspace root. */
export async function focalTarget(services: ToolServices, sel: FunctionSelector): Promise<FocalTarget> {
  const found = await findFunction(services, sel);
  const root = services.workspace.root;
  const task = await taskForDocumentFunction(root, found.relPath, found.text, found.fn.startLine, services.filters);
  if (!task) throw new ToolArgumentError(`function: ${found.fn.name} at line ${found.fn.startLine} of ${found.relPath} cannot be made a task (the file may have changed while it was read); call again`);
  const { abs, relPath, adapter, text } = found;
  return { abs, relPath, adapter, text, root, task };
}
