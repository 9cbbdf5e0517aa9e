/**
 * The languages the editor works in, read at run time from the extension's own package.json
 * (`context.extension.packageJSON`), so that the extension keeps no list of its own: package.json's
 * `activationEvents` (`onLanguage:<id>`) is the list VS Code itself needs, and everything here follows
 * it. No `vscode` import, so test/unit checks it against the engine's registry
 * (test/unit/language-lists.test.ts); the extension never imports the engine.
 */

/** The part of package.json read here; anything else in it is ignored. */
export interface LanguageManifest {
  activationEvents?: unknown;
  description?: unknown;
}

export interface EditorLanguages {
  /** VS Code language ids, in package.json's order (the language client's document selector). */
  readonly ids: readonly string[];
  /**
   * Display names ("Rust", "Go", …) for messages, from package.json's `description`, which names
   * the languages for the Marketplace anyway: "… for Rust, Go, Julia, PHP and Ruby (…)". A description
   * without such a list gives the ids instead.
   */
  readonly names: readonly string[];
}

const ON_LANGUAGE = 'onLanguage:';

/** The "for A, B and C (" list in a description; names hold no comma or parenthesis. */
const NAMES_IN_DESCRIPTION = /\bfor ((?:[^,()]+, )*[^,()]+ and [^,()]+?) \(/;

export function editorLanguages(packageJSON: LanguageManifest): EditorLanguages {
  const events = Array.isArray(packageJSON.activationEvents) ? packageJSON.activationEvents : [];
  const ids = [...new Set(events.filter((e): e is string => typeof e === 'string' && e.startsWith(ON_LANGUAGE)).map((e) => e.slice(ON_LANGUAGE.length)))];
  const m = typeof packageJSON.description === 'string' ? NAMES_IN_DESCRIPTION.exec(packageJSON.description) : null;
  return { ids, names: m ? m[1].split(/, | and /) : ids };
}

/**
 * The VS Code language a result's language (a registry id, `xrt.language`) opens as: the same id
 * when the extension activates on it (every language's registry id is its VS Code id; the
 * language-lists test checks it), else undefined (the caller shows plain text).
 */
export function editorLanguageOf(languages: EditorLanguages, language: string): string | undefined {
  return languages.ids.includes(language) ? language : undefined;
}

/** "Rust, Go, Julia, PHP or Ruby": the names as one choice, for "open a … file". */
export function oneOfNames(languages: EditorLanguages): string {
  const n = languages.names;
  return n.length > 1 ? `${n.slice(0, -1).join(', ')} or ${n[n.length - 1]}` : (n[0] ?? '');
}
