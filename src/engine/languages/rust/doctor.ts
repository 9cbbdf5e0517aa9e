import * as path from 'node:path';
import type { DoctorCheck, DoctorContext, RepositoryDoctor } from '../execution-types';
import { FEATURES_KEY, NO_DEFAULT_FEATURES_KEY } from './configuration';
import { fetchDependencies, isResolutionFailure, unresolvableProblem, type FetchResult } from './dependencies';

/** The `--features` sets the extracted tasks need (task counts), and the tasks dropped by cfg-excluded. */
export interface RustFeatureNeeds {
  tasks: number;
  /** `--features` value ('' for none, ` --no-default-features` appended where needed) -> tasks. */
  bySet: Record<string, number>;
  cfgExcluded: number;
}

/** Counts the features the repository's tasks (extracted with the release's filters: parsing only) need. */
export function rustFeatureNeeds(extraction: Awaited<ReturnType<DoctorContext['extract']>>): RustFeatureNeeds {
  const { tasks, summary } = extraction;
  const bySet: Record<string, number> = {};
  for (const t of tasks) {
    const f = Array.isArray(t.metadata[FEATURES_KEY]) ? (t.metadata[FEATURES_KEY] as string[]).join(',') : '';
    const key = f + (t.metadata[NO_DEFAULT_FEATURES_KEY] === 'true' ? ' --no-default-features' : '');
    bySet[key] = (bySet[key] ?? 0) + 1;
  }
  return { tasks: tasks.length, bySet, cfgExcluded: summary.dropped['cfg-excluded'] };
}

export function formatRustFeatureNeeds(n: RustFeatureNeeds): string[] {
  const sets = Object.entries(n.bySet).sort((a, b) => b[1] - a[1]);
  return [
    `         ${n.tasks} task(s); features: ${sets.map(([k, c]) => `${k.trim() ? k.trim() : 'defaults only'} (${c})`).join(', ') || 'none'}` +
      (n.cfgExcluded ? `; ${n.cfgExcluded} function(s) only another target or Miri compiles (dropped: cfg-excluded)` : ''),
  ];
}

/** Rust's part of `doctor --repo`: the trusted fetch a run makes, then the offline build of the tests. */
export const rustDoctor: RepositoryDoctor = {
  buildCommand: ({ base, scratch, env }) => ({ ...base, argv: ['cargo', 'build', '--tests', '--offline'], env: { ...env, CARGO_TARGET_DIR: path.join(scratch, 'target') } }),
  fix: (repoDir) => `build it yourself with \`cargo build --tests --offline\` in ${repoDir} (after \`cargo fetch\`, as the engine does), or use the docker executor`,
  /**
   * Local executor: the trusted, networked fetch a run makes before its sandboxed phases
   * (dependencies.ts), so the offline build sees what a run would. Docker images fetch when they are built.
   */
  async prepare(copy, how): Promise<FetchResult | null> {
    if (!how.hostFetch) return null;
    return fetchDependencies({ copyDir: copy, projectRoot: copy, bwrap: how.hostFetch.bubblewrap, hostView: how.hostFetch.hostView, signal: how.signal });
  },
  explainFailure(output, repoDir, prepared) {
    const fetch = prepared as FetchResult | null;
    if (fetch?.ok === false || isResolutionFailure(output)) return unresolvableProblem(output, repoDir, fetch ?? undefined);
    return undefined;
  },
  async repositoryFacts(check, repoDir, how) {
    check.rustFeatures = rustFeatureNeeds(await how.extract(repoDir));
  },
  formatFacts: (check: DoctorCheck) => (check.rustFeatures ? formatRustFeatureNeeds(check.rustFeatures as RustFeatureNeeds) : []),
};
