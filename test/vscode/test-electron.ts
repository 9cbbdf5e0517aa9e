/**
 * The design's editor runner, @vscode/test-electron, loaded only when asked for (run.ts): it is not a
 * dependency of this repository, because Microsoft's VS Code downloads are unreachable on the machines
 * it is developed on. Where they are reachable, or a VS Code is installed, add it:
 *
 *   npm install --save-dev @vscode/test-electron
 *
 * and run `XREPOTEST_VSCODE_RUNNER=electron npm run test:vscode` (downloads VS Code), or
 * `VSCODE_PATH=/path/to/code npm run test:vscode` (uses that one).
 */

/** The part of @vscode/test-electron's API the runner uses (the package is optional, so no types). */
export interface TestElectron {
  downloadAndUnzipVSCode(version?: string): Promise<string>;
  resolveCliArgsFromVSCodeExecutablePath(executable: string): string[];
  runTests(options: {
    vscodeExecutablePath?: string;
    extensionDevelopmentPath: string;
    extensionTestsPath: string;
    extensionTestsEnv?: Record<string, string | undefined>;
    launchArgs?: string[];
  }): Promise<number>;
}

export const INSTALL_HINT =
  'the electron runner needs @vscode/test-electron, which is not installed: npm install --save-dev @vscode/test-electron';

/** The package, or undefined when it is not installed (any other load error is thrown). */
export function loadTestElectron(): TestElectron | undefined {
  try {
    return require('@vscode/test-electron') as TestElectron;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND' && String((e as Error).message).includes('@vscode/test-electron')) return undefined;
    throw e;
  }
}

export type RunnerKind = 'code-server' | 'electron';

/**
 * Which VS Code runs the suite: XREPOTEST_VSCODE_RUNNER says (code-server | electron); without it, a
 * VSCODE_PATH naming an installed VS Code picks electron, and code-server stays the default.
 */
export function runnerKind(env: NodeJS.ProcessEnv = process.env): RunnerKind {
  const asked = env.XREPOTEST_VSCODE_RUNNER;
  if (asked === 'code-server' || asked === 'electron') return asked;
  if (asked) throw new Error(`XREPOTEST_VSCODE_RUNNER is code-server or electron, not "${asked}"`);
  return env.VSCODE_PATH ? 'electron' : 'code-server';
}
