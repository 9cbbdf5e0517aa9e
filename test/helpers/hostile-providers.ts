import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import type { CompletionRequest } from '../../src/engine/generate/types';
import type { TaskRecord } from '../../src/engine/tasks/record';

/*
 * Shared by test/unit/hostile-providers.test.ts and test/integration/hostile-providers.test.ts: a raw
 * HTTP server on 127.0.0.1 that plays a (hostile) provider, and the task and request sent to it.
 * Nothing here starts a server or a process at import time.
 */

/** What the server sends for one request: raw bytes and headers, or nothing at all. */
export interface RawReply {
  status?: number;
  contentType?: string;
  body?: string | Buffer;
  headers?: Record<string, string>;
  /** Accept the request and never answer. */
  hang?: boolean;
}

export class RawServer {
  readonly requests: Array<{ url: string; body: Record<string, unknown> }> = [];
  /** Requests whose headers arrived (a client that gives up early may never send the whole body). */
  arrivals = 0;
  private readonly server: http.Server;
  private readonly hung: http.ServerResponse[] = [];
  url = '';

  constructor(private readonly reply: (body: Record<string, unknown>) => RawReply) {
    this.server = http.createServer((req, res) => {
      this.arrivals++;
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
      req.on('end', () => {
        const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
        this.requests.push({ url: req.url ?? '', body });
        const r = this.reply(body);
        if (r.hang) {
          this.hung.push(res);
          return;
        }
        res.writeHead(r.status ?? 200, { 'content-type': r.contentType ?? 'application/json', ...(r.headers ?? {}) });
        res.end(r.body ?? '');
      });
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    for (const r of this.hung) r.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export const TASK: TaskRecord = {
  task_id: 7,
  id: 'hostile0provider',
  function_name: 'area',
  file_path: 'geometry-rs/src/shapes.rs',
  focal_code: 'pub fn area(w: f64, h: f64) -> f64 { w * h }',
  file_content: 'pub fn area(w: f64, h: f64) -> f64 { w * h }\n',
  language: 'rust',
  function_component: { name: 'area', signature: 'pub fn area(w: f64, h: f64) -> f64', start_line: 1, end_line: 1 },
  metadata: { class_name: '', class_signature: '' },
};

export function request(model = 'm', content = 'write a test'): CompletionRequest {
  return { system: 's', messages: [{ role: 'user', content }], params: { model, temperature: 0, maxTokens: 512, topP: 1 }, task: TASK, language: 'rust', sample: 0, round: 0 };
}


/** Call inside a `describe`: `serve` starts a RawServer and `tmp` makes a directory, both cleaned up after each test. */
export function serversAndDirs(): { serve: (reply: (body: Record<string, unknown>) => RawReply) => Promise<RawServer>; tmp: () => string } {
  const servers: RawServer[] = [];
  const dirs: string[] = [];
  const serve = async (reply: (body: Record<string, unknown>) => RawReply): Promise<RawServer> => {
    const s = await new RawServer(reply).start();
    servers.push(s);
    return s;
  };
  const tmp = (): string => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-hostile-providers-'));
    dirs.push(d);
    return d;
  };
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.stop()));
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });
  return { serve, tmp };
}
