import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Node } from 'web-tree-sitter';
import { field, named } from '../../parse/nodes';
import { parseWithDeadline } from '../../parse/parse';
import { gateOfAttribute, nightlyConditionOfAttribute, type Cfg, type Gate } from './cfg';
import { readCargoFeatures, type CargoFeatures } from './manifest';

/*
 * The cfg gates a source file inherits from the crate: those on each `mod x;` declaration (and the
 * inline modules around it) from the crate root down to the file, and each file's own `#![cfg(…)]`.
 * Read from the files themselves, so both extraction and a run (from the sandbox's copy, before
 * any untrusted code) come to the same answer.
 */

export interface FileGates {
  /** The crate's manifest, or null outside a crate (or a manifest we do not read). */
  manifest: CargoFeatures | null;
  /** Gates from the crate root down to the file (the file's own `#![cfg]` not included), outermost first. */
  gates: Gate[];
  /** Whether the `mod` chain from the crate root was found; when not, the gates are incomplete. */
  resolved: boolean;
  /**
   * When the crate root's `#![feature]` / `#![cfg_attr(P, feature(…))]` apply (a nightly rustc is
   * then needed), as written and as a condition on the build; null when the crate asks for none.
   */
  nightly?: Gate | null;
}

const COMMENTS = new Set(['line_comment', 'block_comment']);
const MAX_FILE_BYTES = 2 * 1024 * 1024;

/** The outer attributes written just before an item, in source order (comments between them skipped). */
export function outerAttributes(node: Node): Node[] {
  const out: Node[] = [];
  for (let prev = node.previousNamedSibling; prev; prev = prev.previousNamedSibling) {
    if (COMMENTS.has(prev.type)) continue;
    if (prev.type !== 'attribute_item') break;
    out.unshift(prev);
  }
  return out;
}

export function gatesOf(attributes: Node[]): Gate[] {
  return attributes.map((a) => gateOfAttribute(a.text)).filter((g): g is Gate => g !== null);
}

/** A file's own `#![cfg(…)]` gates (inner attributes at its top level). */
export function innerGates(root: Node): Gate[] {
  return gatesOf(named(root).filter((n) => n.type === 'inner_attribute_item'));
}

function readRegular(file: string): string | null {
  const st = fs.lstatSync(file, { throwIfNoEntry: false });
  if (!st?.isFile() || st.size > MAX_FILE_BYTES) return null;
  return fs.readFileSync(file, 'utf8');
}

/** The nearest folder from the file up to `root` with a crate manifest. */
function crateDir(root: string, file: string): string | null {
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'Cargo.toml'))) return dir;
    if (dir === root || path.dirname(dir) === dir || !isInside(root, dir)) return null;
  }
}

function isInside(dir: string, p: string): boolean {
  const rel = path.relative(dir, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** `#[path = "x.rs"]` on a module declaration; undefined when it has none, null when we cannot read it. */
function pathAttribute(attrs: Node[]): string | null | undefined {
  for (const a of attrs) {
    const m = /^#\[\s*path\s*=\s*"([^"\\]*)"\s*\]$/.exec(a.text);
    if (m) return m[1];
    if (/^#\[\s*(?:cfg_attr\s*\([\s\S]*,\s*)?path\s*=/.test(a.text)) return null;
  }
  return undefined;
}

/** Crates walked so far: the gates of every file, and what each file was when read (to notice edits). */
interface WalkedCrate {
  files: Map<string, Gate[][]>;
  /** The crate root's unstable-feature condition (FileGates.nightly). */
  nightly: Gate | null;
}
const crateCache = new Map<string, WalkedCrate & { seen: Map<string, string> }>();
/** Every run's sandbox is a new crate path: only the last few are kept. */
const MAX_CACHED_CRATES = 8;
const MAX_CRATE_FILES = 5000;

function stamp(file: string): string {
  const st = fs.lstatSync(file, { throwIfNoEntry: false });
  return st ? `${st.size}:${st.mtimeMs}` : '-';
}

/**
 * Every file the crate's module tree reaches from `crateRoot`, with the gates on each way to it:
 * `mod x;` read as rustc reads it (x.rs or x/mod.rs next to a mod-rs file, under the file's own
 * folder otherwise; `#[path]` relative to the declaring file's folder), inline modules included.
 * Files outside the crate's folder or behind links are not followed.
 */
async function walkCrate(crateDirPath: string, crateRoot: string): Promise<WalkedCrate> {
  const cached = crateCache.get(crateRoot);
  if (cached && [...cached.seen].every(([f, s]) => stamp(f) === s)) return cached;
  const files = new Map<string, Gate[][]>();
  let nightly: Gate | null = null;
  const seen = new Map<string, string>();
  const queue: Array<{ file: string; modRs: boolean; gates: Gate[] }> = [{ file: crateRoot, modRs: true, gates: [] }];
  while (queue.length && seen.size < MAX_CRATE_FILES) {
    const { file, modRs, gates } = queue.shift()!;
    const ways = files.get(file) ?? [];
    const firstVisit = ways.length === 0;
    ways.push(gates);
    files.set(file, ways);
    if (!firstVisit) continue; // another way to the same file: its gates are combined below, its children are known
    seen.set(file, stamp(file));
    const text = readRegular(file);
    if (text === null) continue;
    const parsed = await parseWithDeadline('rust', text, 10_000);
    if (!('tree' in parsed)) continue;
    try {
      const root = parsed.tree.rootNode;
      if (file === crateRoot) nightly = nightlyGate(root);
      const own = [...gates, ...innerGates(root)];
      // Children of a non-mod-rs file a/b.rs live under a/b/.
      const childDir = modRs ? path.dirname(file) : path.join(path.dirname(file), path.basename(file, '.rs'));
      const declarations = (container: Node, dir: string, inline: boolean, outer: Gate[]): void => {
        for (const n of named(container)) {
          if (n.type !== 'mod_item') continue;
          const name = field(n, 'name')?.text ?? '';
          const attrs = outerAttributes(n);
          const g = [...outer, ...gatesOf(attrs)];
          const body = field(n, 'body');
          if (body) {
            declarations(body, path.join(dir, name), true, [...g, ...innerGates(body)]);
            continue;
          }
          const explicit = pathAttribute(attrs);
          if (explicit === null) continue;
          let candidates: Array<{ file: string; modRs: boolean }>;
          if (explicit !== undefined) {
            const target = path.resolve(inline ? dir : path.dirname(file), explicit);
            candidates = [{ file: target, modRs: true }];
          } else {
            candidates = [
              { file: path.join(dir, `${name}.rs`), modRs: false },
              { file: path.join(dir, name, 'mod.rs'), modRs: true },
            ];
          }
          for (const c of candidates) {
            if (!isInside(crateDirPath, c.file) || !fs.lstatSync(c.file, { throwIfNoEntry: false })?.isFile()) continue;
            queue.push({ ...c, gates: g });
            break;
          }
        }
      };
      declarations(root, childDir, false, own);
    } finally {
      parsed.tree.delete();
    }
  }
  crateCache.delete(crateRoot);
  crateCache.set(crateRoot, { files, nightly, seen });
  while (crateCache.size > MAX_CACHED_CRATES) crateCache.delete(crateCache.keys().next().value!);
  return { files, nightly };
}

/** The crate root's unstable-feature attributes as one gate: any of their conditions. */
function nightlyGate(root: Node): Gate | null {
  const found = named(root)
    .filter((n) => n.type === 'inner_attribute_item')
    .flatMap((n) => {
      const cfg = nightlyConditionOfAttribute(n.text);
      return cfg ? [{ text: n.text.trim(), cfg }] : [];
    });
  if (found.length === 0) return null;
  return found.length === 1 ? found[0] : { text: found.map((g) => g.text).join(' '), cfg: { kind: 'any', args: found.map((g) => g.cfg) } };
}

/** One gate for a file reached several ways: any(all(way 1), all(way 2), …); none when one way has no gate. */
function combineWays(ways: Gate[][]): Gate[] {
  if (ways.length === 1) return ways[0];
  if (ways.some((w) => w.length === 0)) return [];
  const all = (w: Gate[]): Cfg => (w.length === 1 ? w[0].cfg : { kind: 'all', args: w.map((g) => g.cfg) });
  return [{ text: ways.map((w) => w.map((g) => g.text).join(' ')).join(' | '), cfg: { kind: 'any', args: ways.map(all) } }];
}

/** The gates a Rust file inherits from its crate (see the header). `relPath` is relative to `root`. */
export async function inheritedGates(root: string, relPath: string): Promise<FileGates> {
  const absRoot = path.resolve(root);
  const file = path.resolve(absRoot, relPath);
  const dir = crateDir(absRoot, file);
  const manifest = dir ? readCargoFeatures(dir) : null;
  if (!dir || !manifest) return { manifest, gates: [], resolved: false };
  const roots = [manifest.libPath ?? 'src/lib.rs', 'src/main.rs'].map((r) => path.resolve(dir, r)).filter((r) => isInside(dir, r));
  for (const crateRoot of roots) {
    const crate = await walkCrate(dir, crateRoot);
    if (crateRoot === file) return { manifest, gates: [], resolved: true, nightly: crate.nightly };
    const ways = crate.files.get(file);
    if (ways) return { manifest, gates: combineWays(ways), resolved: true, nightly: crate.nightly };
  }
  return { manifest, gates: [], resolved: false };
}

/**
 * The gates from a file's top level down to the function item starting at `startLine` (1-based),
 * through inline modules, impls and traits, the item's own included; null when no item starts there.
 */
export function itemGatesAt(root: Node, startLine: number): Gate[] | null {
  const walk = (container: Node, acc: Gate[]): Gate[] | null => {
    for (const n of named(container)) {
      if (n.startPosition.row + 1 > startLine || n.endPosition.row + 1 < startLine) continue;
      const own = [...acc, ...gatesOf(outerAttributes(n))];
      if (n.type === 'function_item' && n.startPosition.row + 1 === startLine) return own;
      const body = field(n, 'body');
      if (!body) continue;
      if (n.type === 'mod_item') return walk(body, [...own, ...innerGates(body)]);
      if (n.type === 'impl_item' || n.type === 'trait_item') return walk(body, own);
    }
    return null;
  };
  return walk(root, innerGates(root));
}
