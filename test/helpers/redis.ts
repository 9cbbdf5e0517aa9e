import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { freePort } from './registry';

/** A real redis-server of the test's own: a free loopback port, a folder of its own, stopped by `stop()`. */
export interface TestRedis {
  url: string;
  port: number;
  dir: string;
  stop(): Promise<void>;
  /** Restarts it on the same port and folder (with AOF on, what it wrote survives). */
  restart(): Promise<void>;
}

export function hasRedis(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

async function answers(port: number, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const c = net.connect(port, '127.0.0.1');
      c.once('connect', () => c.write('PING\r\n'));
      c.once('data', (d) => {
        c.destroy();
        resolve(/^(\+PONG|-NOAUTH)/.test(d.toString())); // a password-protected server answers too
      });
      c.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > until) throw new Error(`redis-server on port ${port} did not answer within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function startRedis(options: { appendOnly?: boolean; password?: string } = {}): Promise<TestRedis> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-redis-'));
  const port = await freePort();
  let proc: ChildProcess | null = null;
  const start = async (): Promise<void> => {
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', options.appendOnly ? 'yes' : 'no', '--appendfsync', 'always', ...(options.password ? ['--requirepass', options.password] : [])];
    proc = spawn('redis-server', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    await answers(port, 10_000);
  };
  const stop = async (): Promise<void> => {
    const p = proc;
    proc = null;
    if (!p || p.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      p.once('exit', () => resolve());
      p.kill('SIGKILL');
    });
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    dir,
    async stop() {
      await stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
    async restart() {
      await stop();
      await start();
    },
  };
}
