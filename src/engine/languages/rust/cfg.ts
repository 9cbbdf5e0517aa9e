/*
 * `#[cfg(…)]` predicates: parsed from an attribute's text and evaluated three-valued (true, false,
 * unknown) for the configuration a run builds: `cargo test` on the Linux host (or a Linux image), the
 * test profile, the crate's default features plus the ones we pass with `--features`.
 *
 * Unknown is a real answer: a build script may set any custom cfg (`cargo:rustc-cfg=has_foo`), and
 * `target_feature`, `version(…)` and the like depend on the machine. Only `false` drops a task
 * (extract.ts); only `false` makes an environment verdict (toolchain.ts).
 */

export type Cfg =
  | { kind: 'name'; name: string }
  | { kind: 'value'; key: string; value: string }
  | { kind: 'all' | 'any'; args: Cfg[] }
  | { kind: 'not'; arg: Cfg }
  /**
   * Something we do not evaluate (a syntax error, `version(…)`): always unknown. `call` keeps a call's
   * name and arguments, for `cfg_attr(P, cfg(Q))`.
   */
  | { kind: 'opaque'; call?: { name: string; args: Cfg[] } };

/** One gate on the way to a focal item, as written (for reasons people read) and as parsed. */
export interface Gate {
  text: string;
  cfg: Cfg;
}

type Token = { t: 'ident'; v: string } | { t: 'str'; v: string } | { t: 'punct'; v: string };

function tokenize(text: string): Token[] | null {
  const out: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (/\s/.test(c)) {
      i++;
    } else if (text.startsWith('//', i)) {
      const nl = text.indexOf('\n', i);
      i = nl < 0 ? text.length : nl;
    } else if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2);
      if (end < 0) return null;
      i = end + 2;
    } else if (c === '"') {
      let v = '';
      let j = i + 1;
      for (; j < text.length && text[j] !== '"'; j++) {
        if (text[j] === '\\') return null; // escapes never occur in feature names; not worth reading
        v += text[j];
      }
      if (j >= text.length) return null;
      out.push({ t: 'str', v });
      i = j + 1;
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^(?:r#)?[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i))!;
      out.push({ t: 'ident', v: m[0].replace(/^r#/, '') });
      i += m[0].length;
    } else if ('(),='.includes(c)) {
      out.push({ t: 'punct', v: c });
      i++;
    } else {
      return null;
    }
  }
  return out;
}

/** Parses a predicate list `a, b, …` up to a `)` (not consumed); null on anything unexpected. */
function parseList(tokens: Token[], pos: { i: number }): Cfg[] | null {
  const args: Cfg[] = [];
  while (pos.i < tokens.length && !(tokens[pos.i].t === 'punct' && tokens[pos.i].v === ')')) {
    const p = parsePredicate(tokens, pos);
    if (!p) return null;
    args.push(p);
    const next = tokens[pos.i];
    if (next?.t === 'punct' && next.v === ',') pos.i++;
    else if (!(next?.t === 'punct' && next.v === ')')) return null;
  }
  return args;
}

function parsePredicate(tokens: Token[], pos: { i: number }): Cfg | null {
  const head = tokens[pos.i];
  if (head?.t !== 'ident') return null;
  pos.i++;
  const next = tokens[pos.i];
  if (next?.t === 'punct' && next.v === '=') {
    const value = tokens[pos.i + 1];
    if (value?.t !== 'str') return null;
    pos.i += 2;
    return { kind: 'value', key: head.v, value: value.v };
  }
  if (next?.t === 'punct' && next.v === '(') {
    pos.i++;
    const args = parseList(tokens, pos);
    if (!args || tokens[pos.i]?.v !== ')') return null;
    pos.i++;
    if (head.v === 'all' || head.v === 'any') return { kind: head.v, args };
    if (head.v === 'not') return args.length === 1 ? { kind: 'not', arg: args[0] } : null;
    return { kind: 'opaque', call: { name: head.v, args } }; // version(…), accessible(…): not read
  }
  return { kind: 'name', name: head.v };
}

/** The predicate of one cfg-like argument text (`feature = "std"`, `all(unix, not(miri))`). */
export function parseCfg(text: string): Cfg {
  const tokens = tokenize(text);
  if (!tokens) return { kind: 'opaque' };
  const pos = { i: 0 };
  const p = parsePredicate(tokens, pos);
  return p && pos.i === tokens.length ? p : { kind: 'opaque' };
}

/**
 * The gate an outer or inner attribute puts on its item, or null when it puts none:
 * `#[cfg(P)]` -> P; `#[cfg_attr(P, cfg(Q))]` -> any(not(P), Q) (other `cfg_attr`s gate nothing).
 */
export function gateOfAttribute(attributeText: string): Gate | null {
  const inner = /^#!?\[\s*([\s\S]*?)\s*\]$/.exec(attributeText.trim())?.[1];
  if (!inner) return null;
  const text = attributeText.trim();
  const tokens = tokenize(inner);
  // A cfg we cannot read still gates its item: unknown.
  if (!tokens) return /^cfg\s*\(/.test(inner) ? { text, cfg: { kind: 'opaque' } } : null;
  if (tokens[0]?.t !== 'ident' || tokens[1]?.v !== '(') return null;
  const name = tokens[0].v;
  if (name !== 'cfg' && name !== 'cfg_attr') return null;
  const pos = { i: 2 };
  const args = parseList(tokens, pos);
  if (!args || pos.i !== tokens.length - 1) return { text, cfg: { kind: 'opaque' } };
  if (name === 'cfg') return { text, cfg: args.length === 1 ? args[0] : { kind: 'opaque' } };
  const [condition, ...attrs] = args;
  // Only the `cfg(Q)` among the attributes gates the item (`doc(cfg(…))` and the like do not).
  const qs = attrs.flatMap((a) => (a.kind === 'opaque' && a.call?.name === 'cfg' ? [a.call.args.length === 1 ? a.call.args[0] : ({ kind: 'opaque' } as Cfg)] : []));
  if (!condition || qs.length === 0) return null;
  return { text, cfg: { kind: 'any', args: [{ kind: 'not', arg: condition }, qs.length === 1 ? qs[0] : { kind: 'all', args: qs }] } };
}

/** What a run's build is: the host's Linux target, the test profile, some set of features. */
export interface CfgEnvironment {
  /** Features enabled (defaults and what we pass, closed over the [features] table); null: unknown. */
  features: ReadonlySet<string> | null;
  /** A build script or the project's cargo configuration may set custom cfgs: unknown names are unknown, not false. */
  customCfgs: boolean;
  /** `target_arch` of the machine the tests run on. */
  arch: string;
}

/** What `cargo test` sets on x86_64/aarch64 Linux (rustc --print cfg, plus test and the test profile). */
const SET_NAMES = new Set(['unix', 'test', 'debug_assertions']);
/** Names rustc or cargo may set that a test build on Linux never has. */
const UNSET_NAMES = new Set(['windows', 'miri', 'doc', 'doctest', 'docsrs', 'proc_macro', 'rustfmt', 'clippy', 'FALSE', 'false']);
const TARGET_VALUES: Record<string, (arch: string) => string[]> = {
  target_os: () => ['linux'],
  target_family: () => ['unix'],
  target_env: () => ['gnu'],
  target_vendor: () => ['unknown'],
  target_endian: () => ['little'],
  target_pointer_width: () => ['64'],
  target_arch: (arch) => [arch],
  target_has_atomic: () => ['8', '16', '32', '64', 'ptr'],
  panic: () => ['unwind'],
};

export function hostArch(): string {
  return process.arch === 'arm64' ? 'aarch64' : process.arch === 'x64' ? 'x86_64' : process.arch;
}

type Tri = boolean | undefined;

export function evaluateCfg(cfg: Cfg, env: CfgEnvironment): Tri {
  switch (cfg.kind) {
    case 'opaque':
      return undefined;
    case 'name':
      if (SET_NAMES.has(cfg.name)) return true;
      if (UNSET_NAMES.has(cfg.name) || cfg.name in TARGET_VALUES || cfg.name === 'feature') return false;
      return env.customCfgs ? undefined : false;
    case 'value': {
      if (cfg.key === 'feature') return env.features ? env.features.has(cfg.value) : undefined;
      const known = TARGET_VALUES[cfg.key];
      if (known) return known(env.arch).includes(cfg.value);
      // target_feature, target_abi…: the machine's; anything else is a custom cfg.
      return env.customCfgs || cfg.key.startsWith('target_') ? undefined : false;
    }
    case 'not': {
      const v = evaluateCfg(cfg.arg, env);
      return v === undefined ? undefined : !v;
    }
    case 'all': {
      let unknown = false;
      for (const a of cfg.args) {
        const v = evaluateCfg(a, env);
        if (v === false) return false;
        if (v === undefined) unknown = true;
      }
      return unknown ? undefined : true;
    }
    case 'any': {
      let unknown = false;
      for (const a of cfg.args) {
        const v = evaluateCfg(a, env);
        if (v === true) return true;
        if (v === undefined) unknown = true;
      }
      return unknown ? undefined : false;
    }
  }
}

/**
 * Features a gate asks for, read positively: `feature = "x"`, every one under `all`, the first
 * alternative of an `any` that can hold (none when one already holds). `not(…)` asks for nothing.
 */
function wanted(cfg: Cfg, canHold: (c: Cfg) => boolean, holds: (c: Cfg) => boolean, out: Set<string>): void {
  if (cfg.kind === 'value' && cfg.key === 'feature') out.add(cfg.value);
  else if (cfg.kind === 'all') for (const a of cfg.args) wanted(a, canHold, holds, out);
  else if (cfg.kind === 'any' && !holds(cfg)) {
    const alt = cfg.args.find(canHold);
    if (alt) wanted(alt, canHold, holds, out);
  }
}

export interface FeatureChoice {
  /** Features to pass with `--features`, sorted; only ones the crate declares. */
  features: string[];
  /** `--no-default-features` too: a gate needs a default feature off (`not(feature = "std")`). */
  noDefaultFeatures: boolean;
  /** Every gate holds / one is false whatever we pass / we cannot tell. */
  verdict: 'compiled' | 'excluded' | 'unknown';
  /** The first gate that is false (for `excluded`) or unknown (for `unknown`). */
  gate?: Gate;
}

/** How the crate's features enable each other: the features on when `features` are asked for. */
export type CloseFeatures = (features: Iterable<string>, withDefaults: boolean) => Set<string>;

/** Every gate under one set of enabled features: compiled, excluded (a gate is false) or unknown. */
export function judgeGates(gates: readonly Gate[], env: CfgEnvironment): Pick<FeatureChoice, 'verdict' | 'gate'> {
  let unknown: Gate | undefined;
  for (const g of gates) {
    const v = evaluateCfg(g.cfg, env);
    if (v === false) return { verdict: 'excluded', gate: g };
    if (v === undefined) unknown ??= g;
  }
  return unknown ? { verdict: 'unknown', gate: unknown } : { verdict: 'compiled' };
}

/**
 * The features that bring every gate in, given the crate's declared features and how they enable
 * each other (`close`), and whether the item is then compiled: with the default features if it can
 * be, else without them.
 */
export function chooseFeatures(gates: readonly Gate[], declared: ReadonlySet<string> | null, close: CloseFeatures, base: Omit<CfgEnvironment, 'features'>): FeatureChoice {
  if (!declared) return { features: [], noDefaultFeatures: false, ...judgeGates(gates, { ...base, features: null }) };
  const chosen = new Set<string>();
  const everything: CfgEnvironment = { ...base, features: declared };
  const canHold = (c: Cfg): boolean => evaluateCfg(c, everything) !== false;
  for (const g of gates) {
    const want = new Set<string>();
    wanted(g.cfg, canHold, (c) => evaluateCfg(c, { ...base, features: close(chosen, true) }) === true, want);
    for (const f of want) if (declared.has(f)) chosen.add(f);
  }
  const features = [...chosen].sort();
  const withDefaults = judgeGates(gates, { ...base, features: close(chosen, true) });
  if (withDefaults.verdict !== 'excluded') return { features, noDefaultFeatures: false, ...withDefaults };
  const without = judgeGates(gates, { ...base, features: close(chosen, false) });
  return without.verdict === 'excluded' ? { features, noDefaultFeatures: false, ...withDefaults } : { features, noDefaultFeatures: true, ...without };
}

const ALWAYS: Cfg = { kind: 'all', args: [] };

/** When a list of attributes (inside a `cfg_attr`) turns on a `feature(…)`: null when it never does. */
function featureCondition(attrs: Cfg[]): Cfg | null {
  const when: Cfg[] = [];
  for (const a of attrs) {
    if (a.kind !== 'opaque' || !a.call) continue;
    if (a.call.name === 'feature') when.push(ALWAYS);
    else if (a.call.name === 'cfg_attr' && a.call.args.length > 1) {
      const inner = featureCondition(a.call.args.slice(1));
      if (inner) when.push({ kind: 'all', args: [a.call.args[0], inner] });
    }
  }
  return when.length === 0 ? null : when.length === 1 ? when[0] : { kind: 'any', args: when };
}

/**
 * When a crate-level attribute asks for unstable features, which only a nightly rustc accepts:
 * `#![feature(x)]` -> always; `#![cfg_attr(P, feature(x))]` -> P (so `cfg_attr(test, feature(test))`
 * needs nightly for every test build, `cfg_attr(docsrs, …)` never); null when it asks for none.
 */
export function nightlyConditionOfAttribute(attributeText: string): Cfg | null {
  const inner = /^#!\[\s*([\s\S]*?)\s*\]$/.exec(attributeText.trim())?.[1];
  const tokens = inner ? tokenize(inner) : null;
  if (!tokens || tokens[0]?.t !== 'ident' || tokens[1]?.v !== '(') return null;
  if (tokens[0].v === 'feature') return ALWAYS;
  if (tokens[0].v !== 'cfg_attr') return null;
  const pos = { i: 2 };
  const args = parseList(tokens, pos);
  if (!args || args.length < 2 || pos.i !== tokens.length - 1) return null;
  const when = featureCondition(args.slice(1));
  return when && { kind: 'all', args: [args[0], when] };
}
