import * as fs from 'node:fs';
import * as path from 'node:path';
import { adapterFor } from '../engine/languages';
import { LANGUAGE_IDS, type LanguageId } from '../engine/parse/grammars';

/** Folders no language's own sources live in (dependencies, build output, VCS). */
export const SKIPPED = new Set(['node_modules', 'vendor', 'target', 'dist', 'build', 'out', 'testdata']);

/**
 * The languages of the open workspace, found cheaply: a language's manifest at a folder's root
 * (go.mod, Cargo.toml, composer.json, Gemfile, Project.toml), or one of its source files within the
 * first `maxEntries` entries of a breadth-first walk (hidden folders and dependency folders skipped).
 * The status bar and "Check the environment" flag these languages only.
 */
export function workspaceLanguages(roots: readonly string[], maxEntries = 5000): LanguageId[] {
  const found = new Set<LanguageId>();
  const byExtension = new Map<string, LanguageId>();
  for (const id of LANGUAGE_IDS) for (const ext of adapterFor(id).extensions) byExtension.set(ext, id);
  for (const root of roots) {
    for (const id of LANGUAGE_IDS) if (adapterFor(id).toolchain.manifests.some((m) => fs.existsSync(path.join(root, m)))) found.add(id);
    let seen = 0;
    const queue = [root];
    while (queue.length && seen < maxEntries && found.size < LANGUAGE_IDS.length) {
      const dir = queue.shift()!;
      let entries: fs.Dirent[];
      try {
        entries = fs.readdirSync(dir, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const e of entries) {
        if (++seen > maxEntries) break;
        if (e.name.startsWith('.')) continue;
        if (e.isDirectory()) {
          if (!SKIPPED.has(e.name)) queue.push(path.join(dir, e.name));
        } else if (e.isFile()) {
          const id = byExtension.get(path.extname(e.name));
          if (id) found.add(id);
        }
      }
    }
  }
  return LANGUAGE_IDS.filter((id) => found.has(id));
}
