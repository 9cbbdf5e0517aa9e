/**
 * What the bridge says when the editor has no language server for a language, and the one question
 * it asks to find out. Plain data and text, no connection: unit-tested on its own.
 */
import { adapterFor, type LanguageId } from '../engine/languages';
import type { TaskRecord } from '../engine/tasks/record';
import type { Position } from '../engine/context/types';

/** The editor extension that brings a language's server (the one most users install): languages/<id>/editor.ts. */
export function editorLanguageExtension(language: LanguageId): { name: string; id: string } {
  return adapterFor(language).editor.serverExtension;
}

/** The server the engine starts itself (languages/<id>/lsp-server.ts). */
export function headlessServerName(language: LanguageId): string {
  return adapterFor(language).lsp.serverName;
}

function extensionHint(language: LanguageId): string {
  const e = editorLanguageExtension(language);
  return `the ${e.name} extension (${e.id})`;
}

/** `auto` fell back: what the user is told, once per language. */
export function fallbackNote(language: LanguageId): string {
  const lang = adapterFor(language).displayName;
  return (
    `XRepoTest: no ${lang} language server in the editor, so LSP context comes from the engine's own ${headlessServerName(language)}. ` +
    `Install ${extensionHint(language)} to use the editor's.`
  );
}

/** `editor` was asked for, and the editor has none: what to do about it. */
export function editorMissingMessage(language: LanguageId): string {
  const lang = adapterFor(language).displayName;
  return `no ${lang} language server in the editor for LSP context: install ${extensionHint(language)}, or set "xrepotest.lsp.source" to "auto" or "headless" to use the engine's own ${headlessServerName(language)}`;
}

/** `auto` fell back and the headless server is missing too: both ways to get one. */
export function noServerMessage(language: LanguageId, headlessProblem: string): string {
  return `no ${adapterFor(language).displayName} language server: the editor has none (install ${extensionHint(language)}), and ${headlessProblem}`;
}

/**
 * Where the focal function's name is (0-based): a definition asked there answers whenever the editor
 * has a server for the language, whatever the function's body holds. When the name is not on the
 * function's first line, the line's first word stands in for it.
 */
export function focalNamePosition(task: TaskRecord): Position {
  const line = task.function_component.start_line - 1;
  const text = task.file_content.split('\n')[line] ?? '';
  const name = task.function_name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = new RegExp(`(?<![\\w$])${name}(?![\\w])`).exec(text);
  return { line, character: m ? m.index : Math.max(0, text.search(/\S/)) };
}
