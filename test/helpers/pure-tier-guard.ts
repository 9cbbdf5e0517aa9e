/**
 * The guard of the pure tier (test/unit), loaded by `npm run test:unit` and by `npm test` for that
 * tier only (`--require out/test/helpers/pure-tier-guard.js`). A unit test may compute, read and
 * write files and talk to servers it started in this process; it may not start a process (toolchains,
 * Podman, language servers, a browser, the bundled CLI) nor reach out of the process over the network.
 * Either one throws at once, naming the test and what it tried, so a test in the wrong tier fails
 * loudly instead of making the fast tier slow. Such a test belongs in test/integration.
 *
 * XREPOTEST_GUARD_LOG=FILE also appends one JSON line per refusal (used to sort files into tiers).
 */
// `import x = require` binds the modules themselves (not esModuleInterop's copies), so the patches
// below are what every later `child_process.spawn(...)` and `new net.Socket().connect(...)` calls.
import childProcess = require('node:child_process');
import fs = require('node:fs');
import net = require('node:net');

const PROCESS_STARTERS = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const;
const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|::1|::ffff:127(\.\d{1,3}){3}|0\.0\.0\.0|::)$/i;

/** The test running now (set by the root hook below); hooks of a describe show up as the describe. */
let currentTitle = '';
/** What the running test tried, kept in case the code under test catches the throw and goes on. */
let refusedInTest: string[] = [];
/** Unix socket paths that servers of this process listen on: the only sockets a unit test may open. */
const inProcessSockets = new Set<string>();

export class PureTierViolation extends Error {}

/** The test file in the caller's stack, if the call came synchronously from one. */
function testFileInStack(stack: string): string | undefined {
  // Source-mapped (test/x/y.test.ts) or not (out/test/x/y.test.js).
  return /\/(test\/[^\s:()]+\.test)\.[jt]s:/.exec(stack)?.[1];
}

function refuse(what: string): never {
  const file = testFileInStack(new Error().stack ?? '');
  const where = [file ? `${file}.ts` : '', currentTitle ? `"${currentTitle}"` : ''].filter(Boolean).join(' ');
  const error = new PureTierViolation(
    `test/unit is the pure tier: ${where || 'a test'} tried to ${what}. ` +
    'Tests that start processes or use the network outside this process belong in test/integration ' +
    '(git mv the file, or move the describe that needs it into a file of the same name there).',
  );
  refusedInTest.push(what);
  const log = process.env.XREPOTEST_GUARD_LOG;
  if (log) fs.appendFileSync(log, `${JSON.stringify({ file, test: currentTitle, what })}\n`);
  throw error;
}

function describeCommand(args: unknown[]): string {
  const [command, rest] = args;
  const argv = Array.isArray(rest) ? rest.map(String) : [];
  return [String(command), ...argv].join(' ').slice(0, 200);
}

for (const name of PROCESS_STARTERS) {
  Object.defineProperty(childProcess, name, {
    configurable: true,
    enumerable: true,
    writable: true,
    value: (...args: unknown[]) => refuse(`start a process (child_process.${name}: ${describeCommand(args)})`),
  });
}

/** Where a `socket.connect(...)` call goes, for each of its call forms. */
function destination(args: unknown[]): { path: string } | { host: string } {
  let first = args[0];
  // net.connect/http agents pass [options, cb] normalized under a private symbol key array.
  if (Array.isArray(first)) first = first[0];
  if (first && typeof first === 'object') {
    const o = first as { path?: string; host?: string };
    return o.path !== undefined ? { path: o.path } : { host: o.host ?? 'localhost' };
  }
  if (typeof first === 'string' && !/^\d+$/.test(first)) return { path: first };
  return { host: typeof args[1] === 'string' ? args[1] : 'localhost' };
}

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (this: net.Server, ...args: unknown[]) {
  const first = args[0];
  const socketPath = typeof first === 'string' && !/^\d+$/.test(first) ? first : (first as { path?: string } | null)?.path;
  if (typeof socketPath === 'string') inProcessSockets.add(socketPath);
  return (listen as (...a: unknown[]) => net.Server).apply(this, args);
} as typeof listen;

const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
  const to = destination(args);
  if ('path' in to && !inProcessSockets.has(to.path)) refuse(`open the socket ${to.path}, which no server of this process listens on`);
  if ('host' in to && !LOOPBACK.test(to.host)) refuse(`connect to ${to.host} over the network`);
  return (connect as (...a: unknown[]) => net.Socket).apply(this, args);
} as typeof connect;

/**
 * Mocha root hooks: remember which test runs, for the message; and fail a test that passed only
 * because the code under test caught the refusal (a fallback taken here but not in a real run). A
 * failing root hook stops the run: loud on purpose, since the test is in the wrong tier.
 */
export const mochaHooks = {
  beforeEach(this: Mocha.Context): void {
    currentTitle = this.currentTest?.fullTitle() ?? '';
    refusedInTest = [];
  },
  afterEach(this: Mocha.Context): void {
    const refused = refusedInTest;
    const passed = this.currentTest?.state === 'passed';
    refusedInTest = [];
    if (passed && refused.length > 0) {
      throw new PureTierViolation(
        `test/unit is the pure tier: "${currentTitle}" passed only because the code under test caught the refusal to ` +
          `${refused.join('; ')}. It belongs in test/integration.`,
      );
    }
    currentTitle = '';
  },
};
