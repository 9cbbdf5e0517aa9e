import type { Node } from 'web-tree-sitter';
import type { RunContext } from '../../execute/toolchain';
import { children, field, named } from '../../parse/nodes';
import type { EnvironmentProblem } from '../../score/types';
import { chooseFeatures, hostArch, judgeGates, type Gate } from './cfg';
import { inheritedGates, itemGatesAt } from './gates';
import { closeFeatures, validFeatures } from './manifest';

/** Record keys (metadata) for what a task's focal code needs from cargo; written by extract.ts. */
export const FEATURES_KEY = 'cargo_features';
/** 'true' when the focal code needs `--no-default-features` (`#[cfg(not(feature = "std"))]`). */
export const NO_DEFAULT_FEATURES_KEY = 'cargo_no_default_features';

/** How a run builds the focal crate, decided from the pristine copy before the test is placed. */
export interface FocalConfiguration {
  /** Added to `cargo test --no-run`: `--features=a,b`, `--no-default-features`. */
  args: string[];
  /** The focal code is not compiled under these arguments (a gate is false). */
  environment?: EnvironmentProblem;
  /** A gate we cannot evaluate before building (a build script's cfg, `target_feature`…), as written. */
  unknownGate?: string;
}

function has(o: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, key);
}

/**
 * The features the run passes and whether the focal item is compiled with them. The task's own
 * `cargo_features` are used when it has them, filtered to features the crate's Cargo.toml declares
 * (nothing else reaches cargo's command line); a task without them (the published release) gets
 * the features its gates need, read from the copy.
 */
export async function focalConfiguration(ctx: Pick<RunContext, 'task'> & { sandbox: Pick<RunContext['sandbox'], 'dir' | 'focalRelPath'> }, tree: Node): Promise<FocalConfiguration> {
  const crate = await inheritedGates(ctx.sandbox.dir, ctx.sandbox.focalRelPath);
  const item = itemGatesAt(tree, ctx.task.function_component.start_line) ?? [];
  const gates: Gate[] = [...crate.gates, ...item];
  const manifest = crate.manifest;
  const base = { customCfgs: manifest?.buildScript ?? true, arch: hostArch() };
  const metadata = (ctx.task.metadata ?? {}) as Record<string, unknown>;
  let features: string[];
  let noDefault: boolean;
  if (has(metadata, FEATURES_KEY) || has(metadata, NO_DEFAULT_FEATURES_KEY)) {
    features = validFeatures(manifest, metadata[FEATURES_KEY] ?? []);
    noDefault = metadata[NO_DEFAULT_FEATURES_KEY] === 'true';
  } else {
    const choice = chooseFeatures(gates, manifest?.declared ?? null, (f, d) => (manifest ? closeFeatures(manifest, f, d) : new Set()), base);
    features = choice.features;
    noDefault = choice.noDefaultFeatures;
  }
  const args = [...(features.length ? [`--features=${features.join(',')}`] : []), ...(noDefault ? ['--no-default-features'] : [])];
  const enabled = manifest ? closeFeatures(manifest, features, !noDefault) : null;
  const judged = judgeGates(gates, { ...base, features: enabled });
  if (judged.verdict === 'excluded') {
    const under = `${features.length ? `features ${features.join(', ')}` : 'no extra features'}${noDefault ? ' without the default ones' : ''}`;
    return {
      args,
      environment: {
        cause: 'focal-not-compiled',
        reason:
          `the focal code is not compiled by this run: its gate ${judged.gate!.text} is false for a Linux test build with ${under}; ` +
          're-extract the task with `xrepotest extract` (it records the features a task needs and drops code only another target or Miri compiles), ' +
          'and check the features with `xrepotest doctor --repo DIR`',
      },
    };
  }
  return { args, unknownGate: judged.verdict === 'unknown' ? judged.gate!.text : undefined };
}

/**
 * Where the test module goes: just before the closing brace of the innermost inline module holding
 * the focal item, so `use super::*;` reaches that module's private items; the end of the file when
 * the focal item sits at the file's top level (or in an impl or trait there).
 */
export function insertionOffset(tree: Node, sourceLength: number, startLine: number): number {
  let at = sourceLength;
  const walk = (container: Node): void => {
    for (const n of named(container)) {
      if (n.startPosition.row + 1 > startLine || n.endPosition.row + 1 < startLine) continue;
      const body = field(n, 'body');
      if (!body) continue;
      if (n.type === 'mod_item') {
        const close = children(body).at(-1);
        if (close?.type !== '}') return;
        at = close.startIndex;
        walk(body);
      } else if (n.type === 'impl_item' || n.type === 'trait_item') {
        return;
      }
    }
  };
  walk(tree);
  return at;
}
