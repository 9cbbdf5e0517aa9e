import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { LanguageId } from '../../src/engine/parse/grammars';
import { connectEndpoint, connectEngine, type ConnectedEngine } from '../../src/engine/execute/docker-engine';
import { buildLanguageImage, ensureBaseImage, findLanguageImage, ImageBuildError } from '../../src/engine/execute/images';
import { REPO_ROOT } from './paths';
import { hasTool, skipBecause, type SkipKind } from './skip';

const SERVICE_SCRIPT = path.join(REPO_ROOT, 'scripts', 'podman-service.sh');
/** Image builds run apt or debootstrap: minutes, not mocha's default minute. */
const BUILD_TIMEOUT_MS = 20 * 60_000;

let engine: Promise<ConnectedEngine | string> | undefined;
/** The state folder of the Podman service this test run started (its own, so `stop` ends only it). */
let startedServiceDir: string | undefined;

function stopServiceSync(): void {
  if (!startedServiceDir) return;
  spawnSync(SERVICE_SCRIPT, ['stop'], { env: { ...process.env, XRT_PODMAN_DIR: startedServiceDir }, stdio: 'ignore' });
  fs.rmSync(startedServiceDir, { recursive: true, force: true });
  startedServiceDir = undefined;
}

/** Stops the Podman service this run started, if any; also runs when the process exits. */
export async function stopTestEngine(): Promise<void> {
  stopServiceSync();
  engine = undefined;
}

async function connectOrStart(): Promise<ConnectedEngine | string> {
  let firstError: string;
  try {
    return await connectEngine();
  } catch (e) {
    firstError = (e as Error).message;
  }
  if (!hasTool('podman')) return `no Docker Engine API answers and podman is not installed\n${firstError}`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-test-podman-'));
  const r = spawnSync(SERVICE_SCRIPT, ['start'], { env: { ...process.env, XRT_PODMAN_DIR: dir }, encoding: 'utf8', timeout: 60_000 });
  startedServiceDir = dir;
  process.once('exit', stopServiceSync);
  if (r.status !== 0) {
    stopServiceSync();
    return `no Docker Engine API answers, and the project's Podman service did not start: ${(r.stderr || r.error?.message || '').trim()}`;
  }
  try {
    return await connectEndpoint(`unix://${r.stdout.trim()}`);
  } catch (e) {
    stopServiceSync();
    return (e as Error).message;
  }
}

/**
 * An engine for the test: whichever answers, else the project's Podman service started for this run
 * (stopped by `stopTestEngine` or at exit), else the test is skipped saying why.
 */
export async function engineForTests(ctx: Mocha.Context): Promise<ConnectedEngine> {
  engine ??= connectOrStart();
  const e = await engine;
  if (typeof e === 'string') skipBecause(ctx, e);
  return e;
}

const images = new Map<string, Promise<string>>();

async function imageOnce(ctx: Mocha.Context, key: string, make: () => Promise<string>, kind?: SkipKind): Promise<string> {
  let p = images.get(key);
  if (!p) {
    p = make();
    images.set(key, p);
  }
  ctx.timeout(BUILD_TIMEOUT_MS);
  try {
    return await p;
  } catch (e) {
    const why = e instanceof ImageBuildError ? e.report(10) : (e as Error).message;
    skipBecause(ctx, `${key} cannot be built here: ${why}`, kind);
  }
}

/** `xrepotest/base:trixie`, made from debootstrap once if missing (needs root and Debian's mirror). */
export async function baseImageForTests(ctx: Mocha.Context): Promise<string> {
  const { docker } = await engineForTests(ctx);
  return imageOnce(ctx, 'base image', () => ensureBaseImage(docker));
}

/** The language image that exists, else one built now (once per run); skips with the build's reason. */
export async function languageImageForTests(ctx: Mocha.Context, language: LanguageId): Promise<string> {
  const { docker } = await engineForTests(ctx);
  return imageOnce(ctx, `the ${language} image`, async () => {
    const found = await findLanguageImage(docker, language);
    if (found) return found;
    return (await buildLanguageImage(docker, language, 'auto')).tag;
  }, { image: language });
}
