import * as path from 'node:path';
import { readSandboxFile, SandboxFileError } from '../../execute/safe-fs';
import { projectRelative } from './composer-paths';

/**
 * Test methods a generated test class inherits from the package's own test classes: a model given the
 * package's tests writes `class FooTest extends LanguageFunctionalTest` and supplies only the data
 * provider; PHPUnit then reports the parent's `testX` methods under our class. The tampering check
 * accepts such a name only when it is declared in a parent class found in the project itself, by its
 * composer.json PSR-4/PSR-0 maps (read with safe-fs: no links, capped), at most MAX_DEPTH parents up.
 */

const MAX_DEPTH = 5;
const MAX_FILE_BYTES = 1024 ** 2;

interface Names {
  namespace: string;
  uses: Map<string, string>;
}

/** A PHP file's namespace and `use` imports, read with regular expressions (good enough for class names). */
function namesIn(code: string): Names {
  const namespace = /^\s*namespace\s+([\w\\]+)\s*[;{]/m.exec(code)?.[1] ?? '';
  const uses = new Map<string, string>();
  for (const m of code.matchAll(/^\s*use\s+\\?([\w\\]+)(?:\s+as\s+(\w+))?\s*;/gm)) {
    const full = m[1];
    uses.set((m[2] ?? full.split('\\').pop()!).toLowerCase(), full);
  }
  return { namespace, uses };
}

function resolve(written: string, names: Names): string {
  if (written.startsWith('\\')) return written.slice(1);
  const [first, ...rest] = written.split('\\');
  const imported = names.uses.get(first.toLowerCase());
  if (imported) return [imported, ...rest].join('\\');
  return names.namespace ? `${names.namespace}\\${written}` : written;
}

/** The classes a file declares with the fully qualified name of what each extends. */
function parentsIn(code: string): Array<{ cls: string; parent: string }> {
  const names = namesIn(code);
  return [...code.matchAll(/\bclass\s+(\w+)\s+extends\s+(\\?[\w\\]+)/g)].map((m) => ({ cls: m[1], parent: resolve(m[2], names) }));
}

type Maps = Array<{ prefix: string; dir: string; psr0: boolean }>;

function autoloadMaps(composer: unknown): Maps {
  const maps: Maps = [];
  if (!composer || typeof composer !== 'object') return maps;
  for (const key of ['autoload', 'autoload-dev']) {
    const section = (composer as Record<string, unknown>)[key];
    if (!section || typeof section !== 'object') continue;
    for (const [kind, psr0] of [['psr-4', false], ['psr-0', true]] as const) {
      const map = (section as Record<string, unknown>)[kind];
      if (!map || typeof map !== 'object' || Array.isArray(map)) continue;
      for (const [prefix, dirs] of Object.entries(map as Record<string, unknown>)) {
        for (const d of Array.isArray(dirs) ? dirs : [dirs]) {
          const checked = projectRelative(d);
          if ('rel' in checked) maps.push({ prefix, dir: checked.rel, psr0 });
        }
      }
    }
  }
  return maps.sort((a, b) => b.prefix.length - a.prefix.length);
}

function readQuietly(root: string, rel: string): string | null {
  try {
    return readSandboxFile(root, rel, MAX_FILE_BYTES);
  } catch (e) {
    if (e instanceof SandboxFileError) return null;
    throw e;
  }
}

/** The project folder (relative to the sandbox, '' for its root) holding composer.json, nearest above the focal file. */
function projectDir(sandboxDir: string, focalFile: string): string | null {
  const rel = path.relative(sandboxDir, path.dirname(focalFile)).split(path.sep).filter(Boolean);
  if (rel[0] === '..') return null;
  for (let n = rel.length; n >= 0; n--) {
    const dir = rel.slice(0, n).join('/');
    if (readQuietly(sandboxDir, dir ? `${dir}/composer.json` : 'composer.json') !== null) return dir;
  }
  return null;
}

/**
 * Lower-case method names the classes declared in `code` inherit from the project's own classes,
 * by class (lower-case short name). Empty when nothing can be found.
 */
export function inheritedMethods(code: string, sandboxDir: string, focalFile: string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const dir = projectDir(sandboxDir, focalFile);
  if (dir === null) return out;
  const within = (rel: string) => (dir ? `${dir}/${rel}` : rel);
  let composer: unknown;
  try {
    composer = JSON.parse(readQuietly(sandboxDir, within('composer.json')) ?? 'null');
  } catch {
    return out;
  }
  const maps = autoloadMaps(composer);
  const fileOf = (fqcn: string): string | null => {
    for (const { prefix, dir: base, psr0 } of maps) {
      if (!fqcn.startsWith(prefix)) continue;
      const tail = psr0 ? fqcn.replace(/_(?=[^\\]*$)/g, '/') : fqcn.slice(prefix.length);
      const rel = [base, `${tail.replace(/\\/g, '/')}.php`].filter(Boolean).join('/');
      if ('refused' in projectRelative(rel)) continue;
      const text = readQuietly(sandboxDir, within(rel));
      if (text !== null) return text;
    }
    return null;
  };
  for (const { cls, parent } of parentsIn(code)) {
    const methods = new Set<string>();
    let next: string | null = parent;
    for (let depth = 0; next && depth < MAX_DEPTH && !next.startsWith('PHPUnit\\'); depth++) {
      const text = fileOf(next);
      if (text === null) break;
      for (const m of text.matchAll(/\bfunction\s+&?\s*(\w+)/g)) methods.add(m[1].toLowerCase());
      const short: string = next.split('\\').pop()!;
      next = parentsIn(text).find((p) => p.cls.toLowerCase() === short.toLowerCase())?.parent ?? null;
    }
    if (methods.size) out.set(cls.toLowerCase(), methods);
  }
  return out;
}
