/**
 * Workspace trust without `vscode`: which work needs a trusted workspace and how a refusal is worded.
 * Generating, running, repairing and benchmarking the workspace build and run its code (its build
 * scripts, its tests, its toolchain's directives); in a workspace not yet trusted the extension shows
 * lenses (parsing only) and refuses the rest with the reason and the way to trust it.
 */

/** The refusal: what was asked, why it is refused, and what to do. */
export function trustRefusal(what: string): string {
  return `${what} is disabled until you trust this workspace: it would build and run the workspace's code (its build files, its tests). Trust the workspace to go on.`;
}

/**
 * A benchmark runs the workspace's code only when its tasks come from the workspace; the bundled
 * example and a tasks file the user picked bring their own checkouts.
 */
export function benchmarkNeedsTrust(dataset: 'example' | 'workspace' | object): boolean {
  return dataset === 'workspace';
}
