/**
 * What the pure tier's guard (pure-tier-guard.ts) allows, as plain functions: tested by
 * test/unit/pure-tier-guard.test.ts without installing the guard.
 */

export const PROCESS_STARTERS = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const;

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|::1|::ffff:127(\.\d{1,3}){3}|0\.0\.0\.0|::)$/i;

/** Where a `socket.connect(...)` call goes, for each of its call forms. */
export function destination(args: unknown[]): { path: string } | { host: string } {
  let first = args[0];
  // net.connect and http agents call socket.connect([options, callback]) (normalized arguments).
  if (Array.isArray(first)) first = first[0];
  if (first && typeof first === 'object') {
    const o = first as { path?: string; host?: string };
    return o.path !== undefined ? { path: o.path } : { host: o.host ?? 'localhost' };
  }
  if (typeof first === 'string' && !/^\d+$/.test(first)) return { path: first };
  return { host: typeof args[1] === 'string' ? args[1] : 'localhost' };
}

/**
 * Why a connection is refused, or undefined when a unit test may make it: loopback TCP (a server of
 * this process, or nothing: a refused connection is a fine test), and unix sockets this process listens on.
 */
export function refusedConnection(to: { path: string } | { host: string }, inProcessSockets: ReadonlySet<string>): string | undefined {
  if ('path' in to) return inProcessSockets.has(to.path) ? undefined : `open the socket ${to.path}, which no server of this process listens on`;
  return LOOPBACK.test(to.host) ? undefined : `connect to ${to.host} over the network`;
}

/** `cmd arg arg…` of a child_process call, for the message. */
export function describeCommand(args: unknown[]): string {
  const [command, rest] = args;
  const argv = Array.isArray(rest) ? rest.map(String) : [];
  return [String(command), ...argv].join(' ').slice(0, 200);
}

/** The test file in a stack, source-mapped (test/x/y.test.ts) or not (out/test/x/y.test.js). */
export function testFileInStack(stack: string): string | undefined {
  return /\/(test\/[^\s:()]+\.test)\.[jt]s:/.exec(stack)?.[1];
}

/** Marks the guard's replacements, so a test can tell whether the guard is installed. */
export const GUARD_MARK = Symbol.for('xrepotest.pureTierGuard');
