#!/usr/bin/env node
// The first minute of a new user, lived through: the packaged extension (xrepotest-0.1.0.vsix, `npm
// run package`) installed into a fresh code-server profile, a real repository opened with cold caches
// (a fresh XDG_CACHE_HOME: the engine's warm environments; a fresh GOCACHE), the workspace trusted as a
// user clicks it, screenshots and the status bar's text through the first minute; then, optionally, a
// file opened from Quick Open and the first "Generate scored tests" lens clicked, until its score shows.
//
//   node scripts/first-minute.mjs --repo ../rr/uuid --out out/first-minute/uuid [--open uuid.go --line 68] [--seconds 60]
//     [--then mutants,improve,accept]
//     [--build-times <an earlier trial's profile>/xdg/cache/xrepotest/build-times.json] [--settings JSON]
//
// Prints a timeline (seconds since the page opened: what the status bar and the lenses said) and the
// screenshots' paths. A trial for people (docs/extension.md); no test depends on it.
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CODE_SERVER = path.join(ROOT, '.vscode-test', 'code-server', 'node_modules', '.bin', 'code-server');
const VSIX = path.join(ROOT, 'xrepotest-0.1.0.vsix');
const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const repo = path.resolve(arg('repo', ''));
const out = path.resolve(arg('out', path.join(os.tmpdir(), 'first-minute')));
const openFile = arg('open', '');
const line = arg('line', '');
const seconds = Number(arg('seconds', '60'));
const thenSteps = arg('then', '').split(',').filter(Boolean);
// The build measures of an earlier trial (its profile's xdg/cache/xrepotest/build-times.json): with them
// the warm-up's progress says what the first build took last time; every build cache is still empty.
const buildTimes = arg('build-times', '');
if (!fs.existsSync(repo)) throw new Error('--repo DIR: a checkout (outside the project)');
for (const [what, p] of [['code-server (scripts/vscode-test/install.sh)', CODE_SERVER], ['the .vsix (npm run package)', VSIX]]) if (!fs.existsSync(p)) throw new Error(`missing ${what}: ${p}`);
fs.mkdirSync(out, { recursive: true });

const home = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-first-minute-'));
const dir = (name) => {
  fs.mkdirSync(path.join(home, name), { recursive: true });
  return path.join(home, name);
};
const env = {
  ...process.env,
  XDG_CONFIG_HOME: dir('xdg/config'),
  XDG_DATA_HOME: dir('xdg/data'),
  XDG_CACHE_HOME: dir('xdg/cache'),
  XDG_STATE_HOME: dir('xdg/state'),
  GOCACHE: dir('gocache'),
};
if (buildTimes) {
  fs.mkdirSync(path.join(env.XDG_CACHE_HOME, 'xrepotest'), { recursive: true });
  fs.copyFileSync(buildTimes, path.join(env.XDG_CACHE_HOME, 'xrepotest', 'build-times.json'));
}
fs.mkdirSync(path.join(home, 'user-data', 'User'), { recursive: true });
// Only what keeps a closed network quiet; everything a new user sees is left as it comes.
// `--settings '{"xrepotest.reruns": 5}'`: a user's own settings beside them (a trial of one behaviour).
const userSettings = JSON.parse(arg('settings', '{}'));
fs.writeFileSync(path.join(home, 'user-data', 'User', 'settings.json'), JSON.stringify({ 'telemetry.telemetryLevel': 'off', 'update.mode': 'none', 'extensions.autoCheckUpdates': false, ...userSettings }));
fs.writeFileSync(path.join(home, 'config.yaml'), 'auth: none\n');
const dirArgs = ['--user-data-dir', dir('user-data'), '--extensions-dir', dir('extensions')];
const installed = spawnSync(CODE_SERVER, ['--install-extension', VSIX, ...dirArgs], { env, encoding: 'utf8' });
if (installed.status !== 0) throw new Error(`installing the .vsix failed: ${installed.stderr}`);

const port = await new Promise((resolve) => {
  const s = net.createServer().listen(0, '127.0.0.1', () => {
    const p = s.address().port;
    s.close(() => resolve(p));
  });
});
const server = spawn(CODE_SERVER, ['--auth', 'none', '--config', path.join(home, 'config.yaml'), ...dirArgs, '--disable-telemetry', '--disable-update-check', '--bind-addr', `127.0.0.1:${port}`], { env, detached: true, stdio: 'ignore' });
const timeline = [];
let browser;
try {
  for (let i = 0; i < 100; i++) {
    if (await fetch(`http://127.0.0.1:${port}/healthz`).then(() => true, () => false)) break;
    await new Promise((r) => setTimeout(r, 300));
  }
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: FLAGS });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const t0 = Date.now();
  const at = () => Math.round((Date.now() - t0) / 100) / 10;
  const statusBar = () => page.locator('.statusbar').innerText({ timeout: 2000 }).then((t) => t.replace(/\s+/g, ' ').trim(), () => '');
  const shot = async (name) => {
    const file = path.join(out, `${name}.png`);
    await page.screenshot({ path: file });
    timeline.push({ s: at(), shot: file, statusBar: await statusBar() });
  };
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(repo)}`);
  // The trust prompt, answered as a user who opened their own project.
  const trust = page.getByRole('button', { name: /Yes, I trust the authors/ });
  if (await trust.waitFor({ timeout: 20_000 }).then(() => true, () => false)) {
    await shot('00-trust-prompt');
    await trust.click();
  }
  for (const s of [5, 15, 30, 45, seconds].filter((x, i, all) => x <= seconds && all.indexOf(x) === i)) {
    await page.waitForTimeout(Math.max(0, s * 1000 - (Date.now() - t0)));
    await shot(`${String(s).padStart(2, '0')}s`);
  }
  if (openFile) {
    await page.keyboard.press('Control+P');
    await page.keyboard.type(openFile, { delay: 20 });
    await page.waitForTimeout(800);
    await page.keyboard.press('Enter');
    if (line) {
      // Go to the function (its lens sits on the line above it), as a user scrolls to it.
      await page.waitForTimeout(1500);
      await page.keyboard.press('Control+G');
      await page.keyboard.type(String(line), { delay: 20 });
      await page.keyboard.press('Enter');
    }
    // The first lens on screen (lenses of functions scrolled out of view are in the page too, hidden).
    const generate = page.locator('.contentWidgets .codelens-decoration a', { hasText: 'Generate scored tests' }).locator('visible=true').first();
    await generate.waitFor({ timeout: 60_000 });
    await shot('lens-before');
    const clicked = at();
    // The clicked lens's whole line, found by its place (it says the phase and Cancel while it runs, the score after).
    const top = await generate.boundingBox();
    const lensLine = {
      innerText: () =>
        page.evaluate((y) => {
          const lines = [...document.querySelectorAll('.contentWidgets .codelens-decoration')];
          const near = lines.filter((l) => Math.abs(l.getBoundingClientRect().y - y) < 8);
          return near.map((l) => l.textContent ?? '').join(' ');
        }, top?.y ?? 0),
    };
    await generate.click();
    timeline.push({ s: clicked, clicked: 'Generate scored tests' });
    const seen = new Set();
    const lensText = async () => (await lensLine.innerText().catch(() => '')).replace(/\s+/g, ' ');
    // Records every new lens text until the lens shows a score and no Cancel (settled); `onScore` at the first score.
    const untilSettled = async (onScore) => {
      const deadline = Date.now() + 15 * 60_000;
      let scored = false;
      while (Date.now() < deadline) {
        const lens = await lensText();
        if (lens && !seen.has(lens)) {
          seen.add(lens);
          timeline.push({ s: at(), lens });
        }
        const score = /[✓✗◌⚠⏸]/.test(lens);
        if (score && !scored) {
          scored = true;
          await onScore?.();
        }
        if (score && !/Cancel/.test(lens)) return;
        await page.waitForTimeout(200);
      }
    };
    // The first score, then what follows it (reruns, mutants) until the lens offers Accept or Regenerate.
    await untilSettled(() => shot('lens-first-score'));
    await shot('lens-scored');
    // The score's hover: its plain words and what each number means.
    await page.locator('.contentWidgets .codelens-decoration span, .contentWidgets .codelens-decoration a').filter({ hasText: /[✓✗◌⚠⏸]/ }).first().hover().catch(() => undefined);
    await page.waitForTimeout(1500);
    await shot('lens-scored-hover');
    // What a user does next with the score (`--then mutants,improve,accept`), each clicked on the same
    // lens line, recorded until the lens settles again (or the notification it shows).
    for (const step of thenSteps) {
      const label = { mutants: 'Check with mutants', improve: 'Improve', accept: 'Accept test' }[step];
      if (!label) throw new Error(`--then: unknown step ${step} (mutants, improve, accept)`);
      const action = page.locator('.contentWidgets .codelens-decoration a', { hasText: label }).locator('visible=true').first();
      if (!(await action.waitFor({ timeout: 10_000 }).then(() => true, () => false))) {
        timeline.push({ s: at(), step, absent: `the lens offers no "${label}"` });
        continue;
      }
      const before = await lensText();
      timeline.push({ s: at(), clicked: label });
      await action.click();
      if (step === 'accept') {
        const toast = page.locator('.notifications-toasts .notification-toast').filter({ hasText: /now in/ }).first();
        const shown = await toast.waitFor({ timeout: 60_000 }).then(() => true, () => false);
        timeline.push({ s: at(), notification: shown ? (await toast.innerText()).replace(/\s+/g, ' ') : '(none within 60 s)' });
        await shot('after-accept');
        continue;
      }
      // The lens answers the click (its progress, or already the new score) within a few seconds.
      for (let i = 0; i < 25 && (await lensText()) === before; i++) await page.waitForTimeout(200);
      await untilSettled();
      await shot(`after-${step}`);
    }
  }
} catch (e) {
  const page = browser?.contexts()[0]?.pages()[0];
  if (page) await page.screenshot({ path: path.join(out, 'error.png') }).catch(() => undefined);
  timeline.push({ error: e instanceof Error ? e.message.split('\n')[0] : String(e) });
  process.exitCode = 1;
} finally {
  await browser?.close();
  try {
    process.kill(-server.pid, 'SIGTERM');
  } catch {
    /* gone */
  }
  fs.writeFileSync(path.join(out, 'timeline.json'), JSON.stringify(timeline, null, 2));
  process.stdout.write(`${JSON.stringify(timeline, null, 2)}\nprofile and caches: ${home}\n`);
}
