import type { ConnectionOptions } from 'bullmq';
import Redis, { type RedisOptions } from 'ioredis';

/** Where the run's queue lives: a Redis server named by `redis://` or `rediss://` (TLS). */
export interface QueueAddress {
  host: string;
  port: number;
  username?: string;
  password?: string;
  db: number;
  tls: boolean;
  /** The address without its password, for logs and progress lines. */
  display: string;
}

export class QueueUrlError extends Error {}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/**
 * `redis://[user:password@]host:port[/db]` or `rediss://…`. The password may also come from
 * XREPOTEST_REDIS_PASSWORD (so it is not in the shell history or the process list); the URL's wins.
 */
export function parseQueueUrl(raw: string, env: NodeJS.ProcessEnv = process.env): QueueAddress {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new QueueUrlError(`--queue ${JSON.stringify(raw)} is not a URL: use redis://[user:password@]host:port[/db] (rediss:// for TLS)`);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw new QueueUrlError(`--queue must be a redis:// or rediss:// URL, not ${url.protocol}//`);
  }
  if (!url.hostname) throw new QueueUrlError('--queue names no host: redis://host:port');
  const port = url.port ? Number(url.port) : 6379;
  const dbText = url.pathname.replace(/^\//, '');
  if (dbText && !/^\d{1,2}$/.test(dbText)) throw new QueueUrlError(`--queue: the database is a number (redis://host:port/0), not ${JSON.stringify(dbText)}`);
  const password = url.password ? decodeURIComponent(url.password) : env.XREPOTEST_REDIS_PASSWORD || undefined;
  const username = url.username ? decodeURIComponent(url.username) : undefined;
  const db = dbText ? Number(dbText) : 0;
  const display = `${url.protocol}//${username ? `${username}@` : password ? '***@' : ''}${url.hostname}:${port}/${db}`;
  return { host: url.hostname.replace(/^\[|\]$/g, ''), port, username, password, db, tls: url.protocol === 'rediss:', display };
}

/** A warning for a queue anyone on the network could write to, or null. */
export function openQueueWarning(a: QueueAddress): string | null {
  if (a.password || LOOPBACK.has(a.host)) return null;
  return `the queue at ${a.display} has no password: anyone who reaches it can delete or hold up the run's jobs (without the run key they can sign none; set a password, and XREPOTEST_REDIS_PASSWORD)`;
}

/** Where and as whom to connect, as ioredis takes it. */
function addressOptions(a: QueueAddress): RedisOptions {
  return { host: a.host, port: a.port, username: a.username, password: a.password, db: a.db, ...(a.tls ? { tls: {} } : {}) };
}

/** ioredis options for BullMQ (which requires maxRetriesPerRequest null on blocking connections). */
export function connectionOptions(a: QueueAddress): ConnectionOptions {
  return { ...addressOptions(a), maxRetriesPerRequest: null };
}

/**
 * Whether the queue answers, with the password, within `timeoutMs`: asked once before a run or a
 * worker starts, so a wrong address or password is said in seconds instead of BullMQ retrying forever.
 */
export async function checkQueueReachable(a: QueueAddress, timeoutMs = 5_000): Promise<void> {
  const client = new Redis({
    ...addressOptions(a),
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  // The connection's own error says why (a refused password, a refused connection); the promise only "closed".
  let cause: Error | undefined;
  client.on('error', (e: Error) => (cause ??= e));
  const timer = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no answer')), timeoutMs).unref());
  try {
    await Promise.race([client.connect().then(() => client.ping()), timer]);
  } catch (e) {
    const m = (cause ?? (e as Error)).message;
    if (/WRONGPASS|NOAUTH|invalid password|invalid username/i.test(m)) {
      throw new QueueUrlError(`the queue at ${a.display} refused ${a.password ? 'the password' : 'a connection without a password'}: give the right one in the URL or XREPOTEST_REDIS_PASSWORD`);
    }
    throw new QueueUrlError(`no Redis answers at ${a.display} within ${Math.round(timeoutMs / 1000)} s (${m.split('\n')[0]}): is it running, and reachable from here (host, port${a.tls ? ', TLS' : ''})?`);
  } finally {
    client.disconnect();
  }
}
