/*
 * Strict skips. A test that needs something the machine lacks skips, saying why (skip.ts); that is
 * right on a laptop without PHP, and wrong in CI, where a setup that failed to install PHP would go
 * green with every PHP test skipped. With XRT_STRICT_SKIPS=1 (`.ci/run` sets it) a skip fails the test
 * instead, unless its kind is on the list below: what this kind of machine (Debian, reaching Debian's
 * mirror and the Go and crates.io proxies, no container registry, no GitHub, no RubyGems) cannot have.
 * The kind is what the test says it needs (`skipBecause(this, why, { tools: ['julia'] })`), never read
 * from the message; a skip without a kind is never allowed in strict mode.
 */

/** What a skip is for: programs missing here, a language image not buildable here, a public source not reachable from here. */
export type SkipKind = { tools: readonly string[] } | { image: string } | { source: string };

export interface CannotHave {
  what: 'tool' | 'image' | 'source';
  name: string;
  why: string;
}

/** The skips strict mode allows, each with why this kind of machine cannot have it. */
export const CANNOT_HAVE: readonly CannotHave[] = [
  {
    what: 'tool',
    name: 'julia',
    why: 'Debian has no Julia package, no npm package carries it, and julialang.org is not reachable: scripts/setup.sh cannot install it',
  },
  {
    what: 'image',
    name: 'julia',
    why: 'the Julia language image starts from docker.io/library/julia (Debian has no Julia to build it from), and no container registry answers here',
  },
  {
    what: 'source',
    name: 'tty-color 0.6.0',
    why: "RubyGems and GitHub are not reachable, and the Debian mirror here answers 404 for ruby-tty-color's .orig tarball",
  },
];

export function strictSkips(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.XRT_STRICT_SKIPS === '1';
}

function needs(kind: SkipKind): Array<Omit<CannotHave, 'why'>> {
  if ('tools' in kind) return kind.tools.map((name) => ({ what: 'tool', name }));
  if ('image' in kind) return [{ what: 'image', name: kind.image }];
  return [{ what: 'source', name: kind.source }];
}

/**
 * The entries of `list` that allow a skip of this kind in strict mode (every missing tool must be on
 * it), or null: then the skip fails the test.
 */
export function allowancesFor(kind: SkipKind | undefined, list: readonly CannotHave[] = CANNOT_HAVE): CannotHave[] | null {
  if (!kind) return null;
  const wanted = needs(kind);
  if (wanted.length === 0) return null;
  const found = wanted.map((w) => list.find((c) => c.what === w.what && c.name === w.name));
  return found.every((c): c is CannotHave => c !== undefined) ? found : null;
}

/** Why strict mode refuses a skip: the failure message of the test that would have skipped. */
export function strictRefusal(reason: string, kind: SkipKind | undefined): string {
  const what = kind ? needs(kind).map((n) => `${n.what} ${n.name}`).join(', ') : 'a reason of no kind';
  return (
    `strict skips (XRT_STRICT_SKIPS=1): this test would skip ("${reason}"), for ${what}, which is not on the list of ` +
    `what this kind of machine cannot have (test/helpers/skip-policy.ts): install it, or add it to the list saying why`
  );
}

/** How many skips each allowance covered in this process (the reporter prints them at the end). */
export const allowedSkipCounts = new Map<CannotHave, number>();

export function countAllowedSkip(allowances: readonly CannotHave[]): void {
  for (const a of allowances) allowedSkipCounts.set(a, (allowedSkipCounts.get(a) ?? 0) + 1);
}

/** The closing lines of a strict run: every allowance, why, and how many skips it covered. */
export function strictSkipsSummary(counts: ReadonlyMap<CannotHave, number> = allowedSkipCounts, list: readonly CannotHave[] = CANNOT_HAVE): string {
  const lines = list.map((c) => `  ${c.what} ${c.name}: ${counts.get(c) ?? 0} skipped here; ${c.why}`);
  return `strict skips (XRT_STRICT_SKIPS=1): a skip failed its test unless it was for what this kind of machine cannot have:\n${lines.join('\n')}\n`;
}
