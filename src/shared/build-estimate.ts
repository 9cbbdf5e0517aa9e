/**
 * A build's measure from last time as progress says it (the lens, the warm-up's status item): the
 * engine keeps the measures (engine/execute/build-times.ts); the words are shared by both sides.
 */

/** What this machine measured for the repository's first build last time. */
export interface LastBuild {
  durationMs: number;
  /** Units the build named (crates, packages; 0 when the language's build names none). */
  built: number;
}

/** `40 s`, `4 min`, `1 h 5 min`: a measure as progress says it. */
export function roughDuration(ms: number): string {
  const s = Math.max(1, Math.round(ms / 1000));
  if (s < 90) return `${s} s`;
  const min = Math.round(s / 60);
  return min < 60 ? `${min} min` : `${Math.floor(min / 60)} h${min % 60 ? ` ${min % 60} min` : ''}`;
}

/** `37 crates`, `1 crate`: a count of a build's units (the unit named in the plural). */
export function unitCount(n: number, unit: string): string {
  return `${n} ${n === 1 ? unit.replace(/s$/, '') : unit}`;
}

/** `last time here: 87 crates in 4 min` (the unit left out when the build names none). */
export function lastTimeText(last: LastBuild, unit: string | null): string {
  const units = unit && last.built ? `${unitCount(last.built, unit)} in ` : '';
  return `last time here: ${units}${roughDuration(last.durationMs)}`;
}

/** `last time 4 min`: the short form, where the room is a status bar item's (the long one in its hover). */
export function lastTimeShort(last: LastBuild): string {
  return `last time ${roughDuration(last.durationMs)}`;
}
