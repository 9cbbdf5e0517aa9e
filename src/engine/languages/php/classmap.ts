import type { Node } from 'web-tree-sitter';
import { readSandboxFile, SandboxFileError } from '../../execute/safe-fs';
import { field, named } from '../../parse/nodes';
import { parseWithDeadline } from '../../parse/parse';
import type { ComposerJson } from './composer-json';
import { kindInProject, namesInProjectDir, projectRelative } from './composer-paths';

/**
 * Composer's `classmap` autoloading without Composer: the folders and files it names are scanned with
 * the bundled PHP grammar for classes, interfaces, traits and enums (with their namespace), as
 * `composer dump-autoload` does, for `autoload` and `autoload-dev`. Bounded, since the repository is
 * hostile: at most MAX_FILES files read, MAX_VISITED entries looked at, MAX_DEPTH folders deep,
 * MAX_FILE_BYTES a file, MAX_TOTAL_BYTES in all; past a bound the scan stops and says so.
 */
export const CLASSMAP_LIMITS = {
  maxFiles: 4000,
  maxVisited: 40_000,
  maxDepth: 24,
  maxFileBytes: 2 * 1024 ** 2,
  maxTotalBytes: 64 * 1024 ** 2,
  parseMs: 2_000,
};

/** Extensions Composer's classmap generator reads. */
const PHP_FILE = /\.(php|inc|hh)$/i;

export interface Classmap {
  /** Fully qualified class name (no leading `\`, case as declared) -> project-relative file. */
  classes: Map<string, string>;
  /** Classmap folders and files actually scanned (project-relative). */
  scanned: string[];
  /** Refused entries and bounds hit, in words. */
  notes: string[];
}

const DECLARATIONS = new Set(['class_declaration', 'interface_declaration', 'trait_declaration', 'enum_declaration']);

/** The declared class-likes of one file with their namespaces (`namespace X;` and `namespace X { … }`). */
function declaredNames(root: Node): string[] {
  const out: string[] = [];
  let current = '';
  const visit = (n: Node, ns: string): void => {
    for (const c of named(n)) {
      if (c.type === 'namespace_definition') {
        const name = field(c, 'name')?.text ?? '';
        const body = field(c, 'body');
        if (body) visit(body, name);
        else current = name; // `namespace X;` applies to what follows
        continue;
      }
      if (DECLARATIONS.has(c.type)) {
        const name = field(c, 'name')?.text;
        const scope = ns || current;
        if (name) out.push(scope ? `${scope}\\${name}` : name);
        continue;
      }
      // Conditional declarations (`if (!class_exists(…)) { class X {} }`), as Composer finds them.
      if (c.type === 'compound_statement' || c.type === 'if_statement' || c.type === 'else_clause' || c.type === 'else_if_clause') visit(c, ns);
    }
  };
  visit(root, '');
  return out;
}

function entries(composer: ComposerJson): unknown[] {
  const out: unknown[] = [];
  for (const section of [composer.autoload, composer['autoload-dev']]) {
    const list = section && typeof section === 'object' ? (section as { classmap?: unknown }).classmap : undefined;
    if (Array.isArray(list)) out.push(...list);
    else if (list !== undefined) out.push(list);
  }
  return out;
}

/** Scans composer.json's classmap entries under `projectRoot` (a trusted, pristine copy or checkout). */
export async function scanClassmap(projectRoot: string, composer: ComposerJson, limits = CLASSMAP_LIMITS): Promise<Classmap> {
  const result: Classmap = { classes: new Map(), scanned: [], notes: [] };
  const files: string[] = [];
  let visited = 0;
  let stopped: string | null = null;
  const seen = new Set<string>();

  const walk = (rel: string, depth: number): void => {
    if (stopped) return;
    if (depth > limits.maxDepth) {
      stopped = `classmap: ${rel} is over ${limits.maxDepth} folders deep; the scan stopped there`;
      return;
    }
    for (const name of namesInProjectDir(projectRoot, rel).sort()) {
      if (++visited > limits.maxVisited) {
        stopped = `classmap: over ${limits.maxVisited} entries; the scan stopped`;
        return;
      }
      const child = rel ? `${rel}/${name}` : name;
      if (rel === '' && name === 'vendor') continue;
      const kind = kindInProject(projectRoot, child);
      if (kind === 'dir') walk(child, depth + 1);
      else if (kind === 'file' && PHP_FILE.test(name)) addFile(child);
      if (stopped) return;
    }
  };
  const addFile = (rel: string): void => {
    if (seen.has(rel)) return;
    if (files.length >= limits.maxFiles) {
      stopped = `classmap: over ${limits.maxFiles} PHP files; the scan stopped`;
      return;
    }
    seen.add(rel);
    files.push(rel);
  };

  for (const raw of entries(composer)) {
    if (stopped) break;
    const checked = projectRelative(raw);
    if ('refused' in checked) {
      result.notes.push(`classmap entry ${JSON.stringify(raw)} refused: ${checked.refused}`);
      continue;
    }
    const kind = kindInProject(projectRoot, checked.rel);
    if (kind === 'dir') {
      result.scanned.push(checked.rel || '.');
      walk(checked.rel, 0);
    } else if (kind === 'file') {
      result.scanned.push(checked.rel);
      addFile(checked.rel);
    } else if (kind === 'link') {
      result.notes.push(`classmap entry ${JSON.stringify(raw)} refused: a symbolic link on the way`);
    } else {
      result.notes.push(`classmap entry ${JSON.stringify(raw)} not found`);
    }
  }
  if (stopped) result.notes.push(stopped);

  let total = 0;
  for (const rel of files) {
    let source: string | null;
    try {
      source = readSandboxFile(projectRoot, rel, limits.maxFileBytes);
    } catch (e) {
      if (!(e instanceof SandboxFileError)) throw e;
      result.notes.push(`classmap: ${rel} skipped (${e.message})`);
      continue;
    }
    if (source === null) continue;
    total += source.length;
    if (total > limits.maxTotalBytes) {
      result.notes.push(`classmap: over ${limits.maxTotalBytes} bytes of PHP; the scan stopped at ${rel}`);
      break;
    }
    // Composer's own shortcut: a file that never says class/interface/trait/enum declares none.
    if (!/\b(class|interface|trait|enum)\s/i.test(source)) continue;
    const parsed = await parseWithDeadline('php', source, limits.parseMs);
    if (!('tree' in parsed)) {
      result.notes.push(`classmap: ${rel} did not parse in time; skipped`);
      continue;
    }
    try {
      for (const name of declaredNames(parsed.tree.rootNode)) {
        // The first declaration wins, as Composer warns of and keeps the first ambiguous one.
        if (!result.classes.has(name)) result.classes.set(name, rel);
      }
    } finally {
      parsed.tree.delete();
    }
  }
  return result;
}
