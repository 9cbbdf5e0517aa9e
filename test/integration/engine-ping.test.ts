import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { connectEndpoint, connectEngine } from '../../src/engine/execute/docker-engine';
import { CLI } from '../helpers/paths';
import { skipBecause } from '../helpers/skip';

/*
 * Issue 32, item 4: a slow engine is not an absent one. A real HTTP server on a unix socket answers
 * the Engine API's /_ping and /version as Podman 4.3.1 does (headers and body captured from
 * `podman system service` here), only late; beside it, a socket path with nothing there and a socket
 * file nobody listens on. No mock of dockerode: the engine's own client talks to it over the wire.
 */

const PODMAN_VERSION = {
  Platform: { Name: 'linux/amd64/debian-12' },
  Components: [{ Name: 'Podman Engine', Version: '4.3.1', Details: { APIVersion: '4.3.1', MinAPIVersion: '4.0.0', Os: 'linux' } }],
  Version: '4.3.1',
  ApiVersion: '1.41',
  MinAPIVersion: '1.24',
  Os: 'linux',
  Arch: 'amd64',
};

interface LateEngine {
  socket: string;
  close(): Promise<void>;
  /** Requests it received, in order (method and path). */
  seen: string[];
  /** Requests whose client hung up before the answer. */
  abandoned: string[];
}

/** An Engine API on a unix socket that answers each request `delayMs` after it came. */
async function lateEngine(dir: string, delayMs: number): Promise<LateEngine> {
  const socket = path.join(dir, 'engine.sock');
  const seen: string[] = [];
  const abandoned: string[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    res.on('close', () => {
      if (!res.writableEnded) abandoned.push(`${req.method} ${req.url}`);
    });
    const t = setTimeout(() => {
      timers.delete(t);
      const headers = { 'Api-Version': '1.41', 'Libpod-Api-Version': '4.3.1', Server: 'Libpod/4.3.1 (linux)', 'Cache-Control': 'no-cache' };
      if (req.url?.endsWith('/_ping')) {
        res.writeHead(200, { ...headers, 'Docker-Experimental': 'true', 'Content-Type': 'text/plain; charset=utf-8' });
        res.end('OK');
      } else if (req.url?.startsWith('/images/json')) {
        res.writeHead(200, { ...headers, 'Content-Type': 'application/json' });
        res.end('[]');
      } else if (req.url?.endsWith('/version')) {
        res.writeHead(200, { ...headers, 'Content-Type': 'application/json' });
        res.end(JSON.stringify(PODMAN_VERSION));
      } else {
        res.writeHead(404, { 'Content-Type': 'application/json' });
        res.end('{"message":"not found"}');
      }
    }, delayMs);
    timers.add(t);
  });
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  return {
    socket,
    seen,
    abandoned,
    close: async () => {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('the Docker Engine API: slow is not absent (issue 32, item 4)', function () {
  this.timeout(120_000);
  let dir: string;
  const saved = { DOCKER_HOST: process.env.DOCKER_HOST, XRT_PODMAN_DIR: process.env.XRT_PODMAN_DIR, XDG_RUNTIME_DIR: process.env.XDG_RUNTIME_DIR };
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-engine-ping-'));
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  it('an engine that answers its ping after 4 s (past the old fixed 3 s) is used, and the wait is said while it lasts', async () => {
    const engine = await lateEngine(dir, 4000);
    try {
      const said: string[] = [];
      const c = await connectEndpoint(`unix://${engine.socket}`, { onWait: (m) => said.push(m) });
      assert.equal(c.engine, 'podman 4.3.1 (API 1.41)');
      assert.deepEqual(engine.seen, ['GET /_ping', 'GET /version']);
      assert.ok(said.length > 0, 'a progress message while the engine had not answered');
      assert.match(said[0], new RegExp(`${engine.socket.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} accepted the connection but has not answered its ping`));
      assert.match(said[0], /--engine-timeout/);
    } finally {
      await engine.close();
    }
  });

  it('one that accepts and does not answer within the configured limit is said to be slow, naming the limit to raise', async () => {
    const engine = await lateEngine(dir, 60_000);
    try {
      await assert.rejects(connectEndpoint(`unix://${engine.socket}`, { timeoutMs: 1000 }), (e: Error & { slow?: boolean }) => {
        assert.match(e.message, /accepts connections but did not answer its ping within 1 s/);
        assert.match(e.message, /slow or stuck/);
        assert.match(e.message, /--engine-timeout <s>.*xrepotest\.limits\.engineTimeoutSeconds/);
        assert.equal(e.slow, true);
        return true;
      });
      // The request is given up, not left open: a pending one would keep the process alive until the engine answered.
      while (!engine.abandoned.length) await new Promise((r) => setTimeout(r, 50));
      assert.deepEqual(engine.abandoned, ['GET /_ping']);
    } finally {
      await engine.close();
    }
  });

  it('a socket that does not exist, or that nobody listens on, is absent: said at once, never as slow', async () => {
    const missing = path.join(dir, 'none.sock');
    await assert.rejects(connectEndpoint(`unix://${missing}`, { timeoutMs: 60_000 }), (e: Error & { slow?: boolean }) => {
      assert.match(e.message, /no Docker Engine API at .*none\.sock: no such socket/);
      assert.notEqual(e.slow, true);
      return true;
    });
    // A socket file left by an engine that is gone: it exists, and connecting is refused.
    const stale = path.join(dir, 'stale.sock');
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(stale, resolve));
    // Closing a listening unix socket removes its file in Node; a link keeps a name bound to nobody.
    fs.linkSync(stale, path.join(dir, 'left.sock'));
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await assert.rejects(connectEndpoint(`unix://${path.join(dir, 'left.sock')}`, { timeoutMs: 60_000 }), (e: Error & { slow?: boolean }) => {
      assert.match(e.message, /connection refused \(nothing listens there\)/);
      assert.notEqual(e.slow, true);
      return true;
    });
  });

  it('connectEngine: when the only engine is slow, its message says so (not "no Docker Engine API answered")', async function () {
    const engine = await lateEngine(dir, 60_000);
    try {
      process.env.DOCKER_HOST = `unix://${engine.socket}`;
      process.env.XRT_PODMAN_DIR = path.join(dir, 'podman');
      delete process.env.XDG_RUNTIME_DIR;
      const message = await connectEngine({ timeoutMs: 1000 }).then(
        (other) => skipBecause(this, `another engine answered (${other.endpoint}): the message for a lone slow engine cannot show here`),
        (e: Error) => e.message,
      );
      assert.match(message, /a Docker Engine API runs at unix:\/\/.*engine\.sock but did not answer in time \(slow or stuck, not absent\)/);
      assert.match(message, /\/var\/run\/docker\.sock: no such socket/);
    } finally {
      await engine.close();
    }
  });

  describe('the CLI: --engine-timeout, on any verb', () => {
    before(function () {
      if (!fs.existsSync(CLI)) skipBecause(this, 'dist/cli.js is not built (npm run build)');
    });

    /** `xrepotest …` as a user runs it (the bundled CLI), its engine the late one. */
    function cli(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
      return new Promise((resolve) => {
        const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env, XDG_RUNTIME_DIR: '' } });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        child.on('close', (code) => resolve({ code, stdout, stderr }));
      });
    }

    it('waits as long as the flag says, saying so on stderr, and lists the late engine\'s images', async () => {
      const engine = await lateEngine(dir, 3000);
      try {
        const r = await cli(['images', 'list', '--engine-timeout', '20'], { DOCKER_HOST: `unix://${engine.socket}`, XRT_PODMAN_DIR: path.join(dir, 'podman') });
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stdout, /^engine: podman 4\.3\.1 \(API 1\.41\)$/m);
        assert.match(r.stderr, /accepted the connection but has not answered its ping after \d+ s: waiting up to 20 s/);
      } finally {
        await engine.close();
      }
    });

    it('gives a silent engine up after the flag\'s limit, as slow', async function () {
      const engine = await lateEngine(dir, 60_000);
      try {
        const r = await cli(['--engine-timeout', '1', 'images', 'list'], { DOCKER_HOST: `unix://${engine.socket}`, XRT_PODMAN_DIR: path.join(dir, 'podman') });
        if (r.code === 0) skipBecause(this, `another engine answered here: ${r.stdout.split('\n')[0]}`);
        assert.equal(r.code, 1);
        assert.match(r.stderr, /did not answer its ping within 1 s/);
        assert.match(r.stderr, /slow or stuck, not absent/);
      } finally {
        await engine.close();
      }
    });
  });
});
