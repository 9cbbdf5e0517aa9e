// The part of npm's `semver` (no bundled types, no @types package installed) that runners.ts uses.
declare module 'semver' {
  export function satisfies(version: string, range: string, options?: { includePrerelease?: boolean; loose?: boolean }): boolean;
  export function validRange(range: string, options?: { loose?: boolean }): string | null;
  export function valid(version: string): string | null;
}
