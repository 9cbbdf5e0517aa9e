import * as fs from 'node:fs';
import * as path from 'node:path';

/*
 * What a Cargo.toml says about features, read without a TOML library (none is a dependency, and
 * only three tables matter): [features], optional dependencies (each one an implicit feature unless
 * some feature names it as `dep:x`), and whether a build script can set custom cfgs.
 */

export interface CargoFeatures {
  /** Every feature `--features` accepts: [features] keys and implicit features of optional dependencies. */
  declared: Set<string>;
  /** What each feature enables (`std = ["alloc", "dep:x", "serde?/std"]`). */
  enables: Map<string, string[]>;
  /** The crate's `[lib] path` when it names one, '/'-separated, relative to the manifest's folder. */
  libPath: string | null;
  /** A build script runs (`build.rs`, or `package.build`): it may set any cfg. */
  buildScript: boolean;
}

/** Cargo's rule for feature names: no commas, spaces, `/`, `=` or a leading `-` can reach the command line. */
export const FEATURE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_+.-]*$/;

/** Manifests larger than this are not read (a real one is a few KiB). */
const MAX_MANIFEST_BYTES = 1024 * 1024;

/** Logical TOML lines: comments dropped, a value spanning lines (an array, an inline table) joined. */
function logicalLines(text: string): string[] {
  const out: string[] = [];
  let cur = '';
  let depth = 0;
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      cur += c;
      if (c === '\\' && quote === '"') cur += text[++i] ?? '';
      else if (c === quote) quote = null;
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '#') {
      while (i + 1 < text.length && text[i + 1] !== '\n') i++;
      continue;
    } else if (c === '[' || c === '{') depth++;
    else if (c === ']' || c === '}') depth = Math.max(0, depth - 1);
    else if (c === '\n' && depth === 0) {
      if (cur.trim()) out.push(cur.trim());
      cur = '';
      continue;
    }
    cur += c === '\n' ? ' ' : c;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

function unquote(key: string): string {
  const k = key.trim();
  return /^(["']).*\1$/.test(k) ? k.slice(1, -1) : k;
}

/** The strings of a TOML array of strings (`["a", 'b']`). */
function stringArray(value: string): string[] {
  return [...value.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'/g)].map((m) => m[1] ?? m[2]);
}

/** A table header's dotted key, unquoted: `[target.'cfg(unix)'.dependencies.x]` -> [target, cfg(unix), dependencies, x]. */
function headerKeys(header: string): string[] {
  return [...header.matchAll(/"([^"]*)"|'([^']*)'|([^.\s"']+)/g)].map((m) => m[1] ?? m[2] ?? m[3]);
}

export function parseCargoFeatures(text: string, buildRsExists: boolean): CargoFeatures {
  const enables = new Map<string, string[]>();
  const optional = new Set<string>();
  let libPath: string | null = null;
  let buildScript = buildRsExists;
  let table: string[] = [];
  for (const line of logicalLines(text)) {
    const header = /^\[\[?([^\]]*)\]\]?$/.exec(line);
    if (header) {
      table = headerKeys(header[1]);
      continue;
    }
    const eq = /^("[^"]*"|'[^']*'|[^=]+?)\s*=\s*([\s\S]*)$/.exec(line);
    if (!eq) continue;
    const key = unquote(eq[1]);
    const value = eq[2].trim();
    const last = table[table.length - 1];
    if (table.length === 1 && last === 'features') {
      enables.set(key, stringArray(value));
    } else if (table.length === 1 && last === 'package' && key === 'build') {
      buildScript = value !== 'false';
    } else if (table.length === 1 && last === 'lib' && key === 'path') {
      libPath = stringArray(value)[0] ?? null;
    } else if (last === 'dependencies' || last === 'build-dependencies') {
      // `x = { version = "1", optional = true }`
      if (/\boptional\s*=\s*true\b/.test(value)) optional.add(key);
    } else if (table.length >= 2 && table[table.length - 2] === 'dependencies' && key === 'optional' && value === 'true') {
      optional.add(last); // [dependencies.x] optional = true
    }
  }
  const declared = new Set(enables.keys());
  const namedAsDep = new Set([...enables.values()].flat().filter((v) => v.startsWith('dep:')).map((v) => v.slice(4)));
  for (const dep of optional) if (!namedAsDep.has(dep)) declared.add(dep);
  for (const f of [...declared]) if (!FEATURE_NAME.test(f)) declared.delete(f);
  return { declared, enables, libPath, buildScript };
}

/** The manifest in `dir`, read as a regular file (never through a link), or null. */
export function readCargoFeatures(dir: string): CargoFeatures | null {
  const file = path.join(dir, 'Cargo.toml');
  const st = fs.lstatSync(file, { throwIfNoEntry: false });
  if (!st?.isFile() || st.size > MAX_MANIFEST_BYTES) return null;
  const text = fs.readFileSync(file, 'utf8');
  if (!/^\s*\[package\]/m.test(text)) return null; // a virtual workspace: no crate here
  const buildRs = fs.lstatSync(path.join(dir, 'build.rs'), { throwIfNoEntry: false });
  const cargoConfig = ['.cargo/config.toml', '.cargo/config'].some((c) => fs.existsSync(path.join(dir, c)));
  const parsed = parseCargoFeatures(text, buildRs !== undefined);
  // The project's cargo configuration may pass `--cfg` in its rustflags: custom cfgs become unknown.
  if (cargoConfig) parsed.buildScript = true;
  return parsed;
}

/** Features enabled when `features` are asked for, with the defaults: closed over [features] (cargo's resolution, within one crate). */
export function closeFeatures(manifest: CargoFeatures, features: Iterable<string>, withDefaults = true): Set<string> {
  const out = new Set<string>();
  const queue = [...features, ...(withDefaults && manifest.enables.has('default') ? ['default'] : [])];
  while (queue.length) {
    const f = queue.pop()!;
    if (out.has(f) || !manifest.declared.has(f)) continue;
    out.add(f);
    for (const v of manifest.enables.get(f) ?? []) {
      if (v.startsWith('dep:')) continue;
      const slash = v.indexOf('/');
      // `x/f` turns on the optional dependency x (its implicit feature); `x?/f` does not.
      if (slash >= 0) {
        const dep = v.slice(0, slash);
        if (!dep.endsWith('?')) queue.push(dep);
      } else {
        queue.push(v);
      }
    }
  }
  return out;
}

/** The requested features the crate declares, sorted and unique: nothing else reaches cargo's command line. */
export function validFeatures(manifest: CargoFeatures | null, requested: unknown): string[] {
  if (!manifest || !Array.isArray(requested)) return [];
  const ok = requested.filter((f): f is string => typeof f === 'string' && FEATURE_NAME.test(f) && manifest.declared.has(f));
  return [...new Set(ok)].sort();
}
