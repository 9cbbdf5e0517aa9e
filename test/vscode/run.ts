/**
 * Runs the extension's tests (test/vscode/suite) in a real VS Code: code-server from npm (installed by
 * scripts/vscode-test/install.sh) with a headless Chromium as the thin client that makes the server
 * start an extension host. Microsoft's VS Code downloads are unreachable here, code-server is not
 * (../shared/notes/vscode-host.md).
 *
 * Where they are reachable, or a VS Code is installed, the same suite runs under the design's runner,
 * @vscode/test-electron (test-electron.ts): XREPOTEST_VSCODE_RUNNER=electron (downloads VS Code) or
 * VSCODE_PATH=/path/to/code (uses it). That runner has no browser to take screenshots or type into
 * quick picks, so the tests that ask for those fail there saying so; code-server stays the default.
 *
 *   node out/test/vscode/run.js [--screenshots DIR] [--timeout SECONDS] [--fixture NAME]
 *
 * Exits with the suite's exit code and ends with `vscode tests: N passed, N failed, N skipped`.
 * Whatever happens (failure, deadline, Ctrl-C), the browser is closed, the server's process group is
 * stopped and the temporary folder removed.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { build as esbuild } from 'esbuild';
import { chromium, type Browser, type Page } from 'playwright-core';
import {
  GOPLS_ENV,
  parseMarker,
  RESULT_MARKER,
  INPUT_MARKER,
  SCREENSHOT_MARKER,
  SCREENSHOTS_ENV,
  START_MARKER,
  type InputReceipt,
  type InputRequest,
  type PeekMeasure,
  type ScreenshotReceipt,
  type ScreenshotRequest,
  type SuiteCounts,
} from './protocol';
import { INSTALL_HINT, loadTestElectron, runnerKind } from './test-electron';

const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');
const CODE_SERVER = path.join(REPO_ROOT, '.vscode-test', 'code-server', 'node_modules', '.bin', 'code-server');
const CHROMIUM = '/usr/bin/chromium';
const SUITE_INDEX = path.join(REPO_ROOT, 'out', 'test', 'vscode', 'suite', 'index.js');
const CHROMIUM_FLAGS = [
  '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync',
];
// Build products a fixture may carry from earlier runs; the workspace copy starts clean.
/**
 * Test-only extensions (test/vscode/<name>/: package.json + extension.ts) installed into each run's
 * sandbox: a workbench holds one extensionDevelopmentPath (the payload is read into a map), so they
 * are bundled, packaged and installed the way a user's extensions are.
 */
const TEST_EXTENSIONS = ['gopls-client', 'chat-model'];
/** chat-model registers a language model with VS Code 1.100's proposed chatProvider API: enabled for it alone. */
const PROPOSED_API_EXTENSIONS = ['xrepotest-test.chat-model'];
/** The gopls scripts/setup.sh installs; the gopls-client extension starts it (GOPLS_ENV). */
const GOPLS = path.join(REPO_ROOT, '.tools', 'bin', 'gopls');
const SKIPPED_IN_COPY = new Set(['target', 'vendor', 'coverage', '.phpunit.cache', '.phpunit.result.cache', 'Manifest.toml']);
const TEXT_WAIT_MS = 15_000;
const USER_SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'security.workspace.trust.enabled': false,
  // Mutation testing adds a test run per mutant to every scoring; the tests that check it turn it on.
  'xrepotest.mutation.enabled': false,
  // The background warm-up at opening would build the fixtures beside every test; the warm-up test starts it itself.
  'xrepotest.warmUp.onOpen': false,
};

const MACHINE_SETTINGS = {
  // Walkthroughs open on a first activation (VS Code's and XRepoTest's own); the first-run test opens it itself.
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
};

interface Options {
  screenshots: string;
  timeoutMs: number;
  fixture: string;
}

function parseArgs(argv: string[]): Options {
  const options: Options = {
    screenshots: path.join(REPO_ROOT, 'out', 'vscode-screenshots'),
    timeoutMs: 1_200_000,
    fixture: 'inventory-go',
  };
  for (let i = 0; i < argv.length; i++) {
    const value = argv[i + 1];
    if (argv[i] === '--screenshots' && value) options.screenshots = path.resolve(value);
    else if (argv[i] === '--timeout' && value && Number(value) > 0) options.timeoutMs = Number(value) * 1000;
    else if (argv[i] === '--fixture' && value) options.fixture = value;
    else throw new Error(`unknown or incomplete option: ${argv[i]} (see the header of test/vscode/run.ts)`);
    i++;
  }
  return options;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** A fresh home for one run: user data, extensions, config, XDG folders, TMPDIR and the workspace. */
function makeSandbox(fixture: string): { root: string; workspace: string; env: NodeJS.ProcessEnv; args: string[]; dirArgs: string[] } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'xrepotest-vscode-'));
  const dir = (name: string): string => {
    const p = path.join(root, name);
    fs.mkdirSync(p, { recursive: true, mode: 0o700 });
    return p;
  };
  const workspace = path.join(dir('workspace'), fixture);
  fs.cpSync(path.join(REPO_ROOT, 'test', 'fixtures', fixture), workspace, {
    recursive: true,
    filter: (src) => !SKIPPED_IN_COPY.has(path.basename(src)),
  });
  const config = path.join(root, 'config.yaml');
  fs.writeFileSync(config, 'auth: none\n');
  // The workbench reads user settings from the server: no welcome page or walkthrough over the
  // editors the tests look at, nothing that calls home.
  fs.mkdirSync(path.join(root, 'user-data', 'User'), { recursive: true });
  fs.writeFileSync(
    path.join(root, 'user-data', 'User', 'settings.json'),
    JSON.stringify(USER_SETTINGS, null, 2),
  );
  // Machine-scoped settings of a remote window (code-server is one) are read from the Machine file only.
  fs.mkdirSync(path.join(root, 'user-data', 'Machine'), { recursive: true });
  fs.writeFileSync(path.join(root, 'user-data', 'Machine', 'settings.json'), JSON.stringify(MACHINE_SETTINGS, null, 2));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    XDG_CONFIG_HOME: dir('xdg/config'),
    XDG_DATA_HOME: dir('xdg/data'),
    XDG_CACHE_HOME: dir('xdg/cache'),
    XDG_STATE_HOME: dir('xdg/state'),
    XDG_RUNTIME_DIR: dir('xdg/runtime'),
    TMPDIR: dir('tmp'),
  };
  const dirArgs = ['--user-data-dir', dir('user-data'), '--extensions-dir', dir('extensions')];
  const args = [
    '--auth', 'none', '--config', config, ...dirArgs,
    '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust',
    '--disable-getting-started-override', '--ignore-last-opened',
    ...PROPOSED_API_EXTENSIONS.flatMap((id) => ['--enable-proposed-api', id]),
  ];
  return { root, workspace, env, args, dirArgs };
}

function execFileText(file: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv }): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { ...options, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${path.basename(file)} ${args.join(' ')} failed: ${String(stderr || stdout).trim() || error.message}`)) : resolve(),
    );
  });
}

/**
 * Bundles a test extension (vscode-languageclient inside, as a published extension ships it),
 * packages it with vsce and installs it into the sandbox's extensions folder (about 3 s).
 */
async function installTestExtension(
  name: string,
  sandbox: ReturnType<typeof makeSandbox>,
  install: (vsix: string) => Promise<void> = (vsix) => execFileText(CODE_SERVER, ['--install-extension', vsix, ...sandbox.dirArgs], { env: sandbox.env }),
): Promise<void> {
  const source = path.join(REPO_ROOT, 'test', 'vscode', name);
  const staging = path.join(sandbox.root, 'test-extensions', name);
  fs.mkdirSync(staging, { recursive: true });
  fs.copyFileSync(path.join(source, 'package.json'), path.join(staging, 'package.json'));
  await esbuild({
    entryPoints: [path.join(source, 'extension.ts')],
    outfile: path.join(staging, 'extension.js'),
    bundle: true, platform: 'node', format: 'cjs', target: 'node20', external: ['vscode'], logLevel: 'warning',
  });
  const vsix = path.join(sandbox.root, 'test-extensions', `${name}.vsix`);
  const vsce = path.join(REPO_ROOT, 'node_modules', '.bin', 'vsce');
  await execFileText(vsce, ['package', '--no-dependencies', '--allow-missing-repository', '--skip-license', '--out', vsix], { cwd: staging, env: sandbox.env });
  await install(vsix);
}

/** Starts code-server in its own process group and resolves once it listens. */
function startServer(args: string[], env: NodeJS.ProcessEnv, log: string[]): { child: ChildProcess; ready: Promise<void> } {
  const child = spawn(CODE_SERVER, args, { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const ready = new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      const text = chunk.toString();
      log.push(text);
      if (text.includes('HTTP server listening on')) resolve();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('error', reject);
    child.once('exit', (code, signal) => reject(new Error(`code-server exited early (${signal ?? code})`)));
  });
  return { child, ready };
}

/** TERM to the whole process group (server, extension host, engine server), KILL if it lingers. */
async function stopServer(child: ChildProcess): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const group = -child.pid;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    process.kill(group, 'SIGTERM');
  } catch {
    return; // already gone
  }
  const inTime = await Promise.race([exited.then(() => true), delay(5000).then(() => false)]);
  try {
    // Even after the server exits, children it left behind may still hold the group.
    process.kill(group, 'SIGKILL');
  } catch {
    /* the group is empty */
  }
  if (!inTime) await Promise.race([exited, delay(2000)]);
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

function remoteUri(port: number, file: string): string {
  return `vscode-remote://127.0.0.1:${port}${file}`;
}

/** Writes a receipt aside and renames it, so the suite never reads half of one. */
function writeReceipt(dir: string, name: string, receipt: object): void {
  const file = path.join(dir, `${name}.json`);
  fs.writeFileSync(`${file}.part`, JSON.stringify(receipt));
  fs.renameSync(`${file}.part`, file);
}

async function saveScreenshot(page: Page, dir: string, request: ScreenshotRequest): Promise<void> {
  const name = request.name.replace(/[^\w.-]/g, '_');
  let textFound: boolean | null = null;
  if (request.waitForText) {
    textFound = await page
      .getByText(request.waitForText)
      .first()
      .waitFor({ state: 'visible', timeout: TEXT_WAIT_MS })
      .then(() => true, () => false);
  }
  // Where the text sits in an editor (a lens line), whether its end is inside the editor's visible width.
  const fitsEditor =
    textFound && request.waitForText
      ? await page
          .getByText(request.waitForText)
          .first()
          .evaluate((el) => {
            const editor = el.closest('.monaco-editor');
            if (!editor) return null;
            const mine = el.getBoundingClientRect();
            const box = editor.getBoundingClientRect();
            return mine.right <= box.right && mine.left >= box.left;
          })
          .catch(() => null)
      : null;
  const peek = request.peekActions ? await measurePeek(page, request.waitForText) : undefined;
  const file = path.join(dir, `${name}.png`);
  // Written aside and renamed, so the suite never sees half a picture or a receipt before it.
  await page.screenshot({ path: `${file}.part`, type: 'png' });
  fs.renameSync(`${file}.part`, file);
  const receipt: ScreenshotReceipt = { name, file, textFound, fitsEditor, ...(peek !== undefined ? { peek } : {}) };
  writeReceipt(dir, name, receipt);
  process.stdout.write(`screenshot: ${file}${textFound === false ? ` (text not shown: ${request.waitForText})` : ''}\n`);
}

/**
 * The Testing peek's message (VS Code 1.100: `.test-output-peek-message-container`) and the action
 * button it floats over the message's bottom right (`.floating-click-widget`): whether the button lies
 * inside the message's area, and which lines of text (a plain message's editor lines, a Markdown
 * message's blocks) its box overlaps; the peek showing `shown` first. Null when no visible peek message
 * has a button.
 */
async function measurePeek(page: Page, shown?: string): Promise<PeekMeasure | null> {
  return page
    .locator('.test-output-peek-message-container')
    .evaluateAll((containers, shown) => {
      // The peek that shows the awaited text first (an older peek can still be in the page).
      const visible = containers.filter((c) => c.getClientRects().length > 0);
      const ordered = shown ? [...visible.filter((c) => (c.textContent ?? '').replace(/\u00a0/g, ' ').includes(shown)), ...visible] : visible;
      for (const container of ordered) {
        const button = container.querySelector('.floating-click-widget');
        if (!button) continue;
        const b = button.getBoundingClientRect();
        const c = container.getBoundingClientRect();
        const buttonInside = b.top >= c.top - 0.5 && b.bottom <= c.bottom + 0.5 && b.left >= c.left - 0.5 && b.right <= c.right + 0.5;
        // In the order they are drawn, top to bottom: Monaco reuses its line elements, so their order in
        // the DOM is not the lines' order once the editor has been laid out again.
        const lines = Array.from(container.querySelectorAll('.view-line, .preview-text p, .preview-text li, .preview-text pre') as unknown as ArrayLike<typeof container>)
          .filter((e) => (e.textContent ?? '').trim() !== '')
          .map((e) => ({ e, r: e.getBoundingClientRect() }))
          .sort((x, y) => x.r.top - y.r.top || x.r.left - y.r.left)
          .map((x) => x.e);
        const covered = lines
          .filter((e) => {
            // An editor line's box spans the editor's width: its text is the span inside it (spaces drawn as U+00A0).
            const r = (e.classList.contains('view-line') ? (e.firstElementChild ?? e) : e).getBoundingClientRect();
            return r.right > b.left && r.left < b.right && r.bottom > b.top && r.top < b.bottom;
          })
          .map((e) => (e.textContent ?? '').replace(/\u00a0/g, ' ').trim());
        return { buttonInside, covered, button: (button.textContent ?? '').trim(), text: lines.map((e) => (e.textContent ?? '').replace(/\u00a0/g, ' ').trim()).join(' ').slice(0, 1000) };
      }
      return null;
    }, shown)
    .catch(() => null);
}

async function settleQuickPick(page: Page, typed: string): Promise<void> {
  await page.waitForTimeout(300);
  const list = page.locator('.quick-input-widget .quick-input-list');
  if (!(await list.isVisible().catch(() => false))) return; // an input box: nothing to settle
  const escaped = typed.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  await list
    .locator('.monaco-list-row.focused', { hasText: new RegExp(escaped, 'i') })
    .first()
    .waitFor({ state: 'visible', timeout: TEXT_WAIT_MS })
    .catch(() => undefined);
}

/** Types into the workbench (quick picks, input boxes) step by step, each after its text shows. */
async function typeInput(page: Page, dir: string, request: InputRequest): Promise<void> {
  const name = request.name.replace(/[^\w.-]/g, '_');
  let stepsDone = 0;
  let error: string | undefined;
  for (const step of request.steps) {
    if (step.waitForText) {
      const shown = await page
        .getByText(step.waitForText)
        .first()
        .waitFor({ state: 'visible', timeout: TEXT_WAIT_MS * 2 })
        .then(() => true, () => false);
      if (!shown) {
        error = `"${step.waitForText}" never showed`;
        break;
      }
    }
    if (step.click) {
      const clicked = await page
        .locator(step.click)
        .first()
        .click({ timeout: TEXT_WAIT_MS })
        .then(() => true, () => false);
      if (!clicked) {
        error = `nothing to click at ${step.click}`;
        break;
      }
    }
    if (step.type) await page.keyboard.type(step.type, { delay: 20 });
    // The quick pick filters as it is typed; Enter only once its focused row is the match (a busy
    // machine can take longer than a moment, and Enter would pick the row still focused before).
    if (step.type && step.press) await settleQuickPick(page, step.type);
    if (step.press) await page.keyboard.press(step.press);
    stepsDone++;
  }
  const receipt: InputReceipt = { name, stepsDone, ...(error ? { error } : {}) };
  writeReceipt(dir, name, receipt);
  process.stdout.write(`input: ${name}: ${stepsDone}/${request.steps.length} steps${error ? ` (${error})` : ''}\n`);
}

async function main(): Promise<number> {
  const options = parseArgs(process.argv.slice(2));
  if (runnerKind() === 'electron') return runUnderElectron(options);
  const missing = [
    fs.existsSync(CODE_SERVER) ? '' : 'code-server (run scripts/vscode-test/install.sh)',
    fs.existsSync(CHROMIUM) ? '' : `${CHROMIUM} (apt-get install chromium)`,
    fs.existsSync(SUITE_INDEX) ? '' : `${SUITE_INDEX} (npx tsc -p test/vscode)`,
  ].filter(Boolean);
  if (missing.length > 0) {
    process.stdout.write(`vscode tests: skipped: missing ${missing.join(', ')}\nvscode tests: 0 passed, 0 failed, 0 skipped\n`);
    return 0;
  }
  fs.rmSync(options.screenshots, { recursive: true, force: true });
  fs.mkdirSync(options.screenshots, { recursive: true });
  process.stdout.write(`screenshots: ${options.screenshots}\n`);

  const sandbox = makeSandbox(options.fixture);
  const serverLog: string[] = [];
  const workbenchLog: string[] = [];
  let suiteStarted = false;
  let server: ChildProcess | undefined;
  let browser: Browser | undefined;
  let counts: SuiteCounts | undefined;
  let cleaning: Promise<void> | undefined;
  const cleanup = (): Promise<void> =>
    (cleaning ??= (async () => {
      await Promise.race([browser?.close().catch(() => undefined), delay(5000)]);
      if (server) await stopServer(server);
      fs.rmSync(sandbox.root, { recursive: true, force: true });
    })());

  let interrupt: (reason: string) => void = () => undefined;
  const interrupted = new Promise<string>((resolve) => (interrupt = resolve));
  // Kept for the whole run (a second Ctrl-C must not fall through to a default exit that skips the
  // cleanup); playwright's own handlers are off for the same reason.
  const onSignal = (signal: NodeJS.Signals): void => interrupt(`interrupted (${signal})`);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onSignal);
  const deadline = setTimeout(() => interrupt(`deadline of ${options.timeoutMs / 1000} s passed`), options.timeoutMs);

  const run = async (): Promise<number> => {
    for (const name of TEST_EXTENSIONS) {
      // A missing test extension costs the tests that need it (they skip, saying so), not the run.
      await installTestExtension(name, sandbox).catch((e: unknown) => {
        process.stdout.write(`vscode tests: test extension ${name} not installed: ${e instanceof Error ? e.message : String(e)}\n`);
      });
    }
    const port = await freePort();
    const goplsEnv = fs.existsSync(GOPLS) ? { [GOPLS_ENV]: GOPLS } : {};
    const started = startServer(
      [...sandbox.args, '--bind-addr', `127.0.0.1:${port}`],
      { ...sandbox.env, [SCREENSHOTS_ENV]: options.screenshots, ...goplsEnv },
      serverLog,
    );
    server = started.child;
    await started.ready;
    // Neither a dead server nor a crashed page ever reports an exit code: stop waiting for one.
    started.child.once('exit', (c, signal) => interrupt(`code-server exited (${signal ?? c})`));

    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_FLAGS,
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.once('crash', () => interrupt('the workbench page crashed'));
    let exitWith: (code: number) => void = () => undefined;
    const exited = new Promise<number>((resolve) => (exitWith = resolve));
    // Screenshots are taken one at a time, in the order the suite asks for them.
    let shots = Promise.resolve();
    await page.exposeFunction('codeAutomationLog', (_level: string, message: string) => {
      for (const line of String(message).split('\n')) {
        if (!suiteStarted) {
          // The workbench's own chatter (connections, caches) until the suite starts; shown on failure.
          if (line.includes(START_MARKER)) suiteStarted = true;
          else workbenchLog.push(line);
          continue;
        }
        const request = parseMarker<ScreenshotRequest>(line, SCREENSHOT_MARKER);
        if (request) {
          shots = shots.then(() => saveScreenshot(page, options.screenshots, request)).catch((e: unknown) => {
            process.stdout.write(`screenshot ${request.name} failed: ${String(e)}\n`);
          });
          continue;
        }
        const input = parseMarker<InputRequest>(line, INPUT_MARKER);
        if (input) {
          shots = shots.then(() => typeInput(page, options.screenshots, input)).catch((e: unknown) => {
            process.stdout.write(`input ${input.name} failed: ${String(e)}\n`);
          });
          continue;
        }
        const result = parseMarker<SuiteCounts>(line, RESULT_MARKER);
        if (result) counts = result;
        else process.stdout.write(`${line}\n`);
      }
    });
    await page.exposeFunction('codeAutomationExit', (code: number) => exitWith(Number(code)));
    const payload = JSON.stringify([
      ['extensionDevelopmentPath', remoteUri(port, REPO_ROOT)],
      ['extensionTestsPath', remoteUri(port, SUITE_INDEX)],
    ]);
    await page.goto(
      `http://127.0.0.1:${port}/?folder=${encodeURIComponent(sandbox.workspace)}&payload=${encodeURIComponent(payload)}`,
    );
    const code = await exited;
    await shots;
    return code;
  };

  let code: number;
  try {
    const outcome = await Promise.race([run(), interrupted]);
    if (typeof outcome === 'string') {
      process.stdout.write(`vscode tests: ${outcome}\n`);
      await finalScreenshot(browser, options.screenshots);
      code = 1;
    } else {
      code = outcome;
    }
  } catch (e) {
    process.stdout.write(`vscode tests: ${e instanceof Error ? e.message : String(e)}\n`);
    code = 1;
  } finally {
    clearTimeout(deadline);
    await cleanup();
  }
  const c = counts ?? { passed: 0, failed: 0, skipped: 0 };
  if (!counts) {
    process.stdout.write('vscode tests: the suite reported no counts (it did not finish)\n');
    process.stdout.write(`code-server log (last lines):\n${lastLines(serverLog.join(''), 30)}\n`);
    if (!suiteStarted) process.stdout.write(`workbench log (last lines):\n${lastLines(workbenchLog.join('\n'), 30)}\n`);
  }
  // A run that failed without failing tests (the suite never ran, a deadline) still fails.
  if (code === 0 && !counts) code = 1;
  process.stdout.write(`\nvscode tests: ${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped\n`);
  return code;
}

/**
 * The suite in VS Code itself, started by @vscode/test-electron (VSCODE_PATH's, or one it downloads),
 * in the same sandbox as under code-server. The suite's log reaches this process's stdout through
 * test-electron, so the counts are read from there.
 */
async function runUnderElectron(options: Options): Promise<number> {
  const testElectron = loadTestElectron();
  if (!testElectron || !fs.existsSync(SUITE_INDEX)) {
    const why = testElectron ? `missing ${SUITE_INDEX} (npx tsc -p test/vscode)` : INSTALL_HINT;
    process.stdout.write(`vscode tests: ${why}\n\nvscode tests: 0 passed, 0 failed, 0 skipped\n`);
    return 1; // asked for by name: not having it is a failure, not a skip
  }
  const sandbox = makeSandbox(options.fixture);
  let counts: SuiteCounts | undefined;
  const write = process.stdout.write.bind(process.stdout);
  let code: number;
  try {
    const executable = process.env.VSCODE_PATH || (await testElectron.downloadAndUnzipVSCode());
    const [cli] = testElectron.resolveCliArgsFromVSCodeExecutablePath(executable);
    for (const name of TEST_EXTENSIONS) {
      const install = (vsix: string): Promise<void> => execFileText(cli!, ['--install-extension', vsix, ...sandbox.dirArgs], { env: sandbox.env });
      await installTestExtension(name, sandbox, install).catch((e: unknown) => {
        process.stdout.write(`vscode tests: test extension ${name} not installed: ${e instanceof Error ? e.message : String(e)}\n`);
      });
    }
    process.stdout.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
      for (const line of String(chunk).split('\n')) counts = parseMarker<SuiteCounts>(line, RESULT_MARKER) ?? counts;
      return write(chunk, ...rest);
    }) as typeof process.stdout.write;
    const goplsEnv = fs.existsSync(GOPLS) ? { [GOPLS_ENV]: GOPLS } : {};
    code = await testElectron
      .runTests({
        vscodeExecutablePath: executable,
        extensionDevelopmentPath: REPO_ROOT,
        extensionTestsPath: SUITE_INDEX,
        extensionTestsEnv: { ...sandbox.env, ...goplsEnv },
        launchArgs: [sandbox.workspace, ...sandbox.dirArgs, '--disable-gpu'],
      })
      .catch(() => 1); // test-electron rejects when the suite fails; the counts say how
  } catch (e) {
    process.stdout.write(`vscode tests: ${e instanceof Error ? e.message : String(e)}\n`);
    code = 1;
  } finally {
    process.stdout.write = write;
    fs.rmSync(sandbox.root, { recursive: true, force: true });
  }
  if (code === 0 && !counts) code = 1;
  const c = counts ?? { passed: 0, failed: 0, skipped: 0 };
  process.stdout.write(`\nvscode tests: ${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped\n`);
  return code;
}

function lastLines(text: string, n: number): string {
  return text.trimEnd().split('\n').slice(-n).join('\n');
}

/** What the workbench showed when the run was cut short. */
async function finalScreenshot(browser: Browser | undefined, dir: string): Promise<void> {
  const page = browser?.contexts()[0]?.pages()[0];
  if (!page) return;
  await Promise.race([page.screenshot({ path: path.join(dir, 'interrupted.png') }).catch(() => undefined), delay(5000)]);
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`vscode tests: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  },
);
