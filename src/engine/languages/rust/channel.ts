import { hostToolIdentity } from '../../execute/warm-environment';

/** The release channel of a rustc: only nightly (and locally built `-dev`) compilers accept `#![feature]`. */
export type RustChannel = 'stable' | 'nightly';

/** The channel `rustc -vV` reports (`release: 1.95.0` stable or beta, `1.96.0-nightly`, `-dev`). */
export function channelOfVersion(vV: string): RustChannel {
  const release = /^release:\s*(\S+)/m.exec(vV)?.[1] ?? '';
  return /-(nightly|dev)\b/.test(release) ? 'nightly' : 'stable';
}

/**
 * The host's channel, from `rustc -vV` run from `/` (no project's rust-toolchain file applies, so a
 * checkout cannot choose the compiler that is asked). No rustc counts as stable: the Rust image the
 * docker executor builds carries a stable toolchain too.
 */
export function hostRustChannel(): RustChannel {
  return channelOfVersion(hostToolIdentity('rustc', ['-vV']));
}
