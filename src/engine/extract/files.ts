import * as fs from 'node:fs';
import * as path from 'node:path';
import { adapterForPath } from '../languages';
import type { LanguageId } from '../parse/grammars';

/** Folders of code that is not the project's own (the release: vendor, build, target "and similar"). */
export const DEFAULT_EXCLUDED_DIRS: readonly string[] = ['vendor', 'build', 'target', 'node_modules', 'dist', 'third_party'];

export interface SourceFile {
  /** Path relative to the repository root, '/'-separated. */
  relPath: string;
  absPath: string;
  language: LanguageId;
  size: number;
}

export interface WalkResult {
  files: SourceFile[];
  /** Source files of the five languages under excluded or hidden folders (not parsed). */
  excludedPath: number;
}

/** Source files of the requested languages, sorted by path; symlinks are not followed. */
export function listSourceFiles(root: string, languages: ReadonlySet<LanguageId>, excludedDirs: readonly string[] = DEFAULT_EXCLUDED_DIRS): WalkResult {
  const files: SourceFile[] = [];
  let excludedPath = 0;
  const countExcluded = (dir: string): void => {
    for (const e of safeReaddir(dir)) {
      if (e.isDirectory()) countExcluded(path.join(dir, e.name));
      else if (e.isFile()) {
        const a = adapterForPath(e.name);
        if (a && languages.has(a.id)) excludedPath++;
      }
    }
  };
  const walk = (dir: string, rel: string): void => {
    for (const e of safeReaddir(dir)) {
      const abs = path.join(dir, e.name);
      const relPath = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (e.name.startsWith('.') || excludedDirs.includes(e.name)) {
          // .git holds no sources worth counting, and walking it is slow on big histories.
          if (e.name !== '.git') countExcluded(abs);
        } else walk(abs, relPath);
      } else if (e.isFile()) {
        const adapter = adapterForPath(e.name);
        if (adapter && languages.has(adapter.id)) {
          files.push({ relPath, absPath: abs, language: adapter.id, size: fs.statSync(abs).size });
        }
      }
    }
  };
  walk(root, '');
  files.sort((a, b) => (a.relPath < b.relPath ? -1 : a.relPath > b.relPath ? 1 : 0));
  return { files, excludedPath };
}

function safeReaddir(dir: string): fs.Dirent[] {
  try {
    return fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
  } catch {
    return []; // unreadable folder: nothing to extract from it
  }
}

export type ReadOutcome =
  | { kind: 'text'; text: string }
  | { kind: 'binary' }
  | { kind: 'non-utf8' };

const decoder = new TextDecoder('utf-8', { fatal: true });

/** Reads a source file as UTF-8 text; binary and non-UTF-8 files are reported, not thrown. */
export function readSourceText(absPath: string): ReadOutcome {
  const bytes = fs.readFileSync(absPath);
  const head = bytes.subarray(0, 8192);
  if (head.includes(0)) return { kind: 'binary' };
  try {
    let text = decoder.decode(bytes);
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1); // a BOM is not part of the code
    return { kind: 'text', text };
  } catch {
    return { kind: 'non-utf8' };
  }
}
