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
import { describeCommand, destination, GUARD_MARK, PROCESS_STARTERS, refusedConnection, testFileInStack } from './pure-tier-rules';


/** The test running now (set by the root hook below); hooks of a describe show up as the describe. */
let currentTitle = '';
/** What the running test tried, kept in case the code under test catches the throw and goes on. */
let refusedInTest: string[] = [];
/** Unix socket paths that servers of this process listen on: the only sockets a unit test may open. */
const inProcessSockets = new Set<string>();

export class PureTierViolation extends Error {}

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

for (const name of PROCESS_STARTERS) {
  Object.defineProperty(childProcess, name, {
    configurable: true,
    enumerable: true,
    writable: true,
    value: Object.assign((...args: unknown[]) => refuse(`start a process (child_process.${name}: ${describeCommand(args)})`), { [GUARD_MARK]: true }),
  });
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
  const refused = refusedConnection(destination(args), inProcessSockets);
  if (refused) refuse(refused);
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
