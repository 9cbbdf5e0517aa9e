/**
 * What a sandboxed run reports names the disposable copy (`/tmp/xrt-sandbox-…/x_test.go:12`); people
 * and agents read it as the workspace it is a copy of. One rule for the editor (src/server) and the
 * agents' tools (engine/tools).
 */

/**
 * A sandbox's root as the engine names it (`<tmp>/xrt-sandbox-ns<pid namespace>-<pid>-<random>`, or
 * `xrt-sandbox-<pid>-<random>` from older versions). Containers mount it at the same absolute path;
 * the local executor shows it to some toolchains (Rust) at its fixed path, `/xrt/sandbox`
 * (execute/local.ts), which a runner then names instead.
 */
const SANDBOX_ROOT = /(?:(?:\/[^\s'"`:()<>[\]]+)*\/xrt-sandbox-(?:ns\d+-)?\d+-[A-Za-z0-9_]+|(?<![\w./-])\/xrt\/sandbox(?![\w-]))/g;

/** `text` with every sandbox root replaced by the workspace folder it is a copy of. */
export function mapSandboxPaths(text: string, workspaceRoot: string): string {
  return text.replace(SANDBOX_ROOT, workspaceRoot.replace(/[\\/]$/, ''));
}
