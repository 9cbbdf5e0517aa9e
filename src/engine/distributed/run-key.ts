import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import * as fs from 'node:fs';

/**
 * The run key: a secret the coordinator and its workers share, apart from Redis's password. Whoever
 * can write to Redis can put anything in a job or an answer; only a holder of the run key can sign
 * one. Every job, every answer and every model call of the rate-limited queue travels as a signed
 * message (HMAC-SHA256 over the exact text sent), bound to its queue, its job id and, for an
 * answer, the nonce of the message it answers: a valid message cannot be re-sent for another job,
 * another queue, or an earlier issue of the same job.
 */

export const RUN_KEY_ENV = 'XREPOTEST_RUN_KEY';

/** How to make and give one: said by every refusal to start without one. */
export const RUN_KEY_HOW =
  'make one with `xrepotest queue new-key --out run.key` (or `openssl rand -hex 32 > run.key`), and give the same key to the coordinator and every worker: --run-key-file run.key, or its text in XREPOTEST_RUN_KEY';

export class RunKeyError extends Error {}

/** 32 random bytes as 64 hex digits. */
export function newRunKey(): string {
  return randomBytes(32).toString('hex');
}

/**
 * At least 32 random bytes' worth of text (64 hex digits, or 43 base64 characters): anyone reading
 * Redis sees signed messages and could test guesses of a short or chosen key offline.
 */
const KEY_TEXT = /^(?:[0-9a-fA-F]{64,}|[A-Za-z0-9+/_-]{43,}={0,2})$/;

/**
 * A key of the right length that is no random text: few distinct characters, or a short pattern
 * repeated ('ab' x 32, '0123456789abcdef' x 4). 64 random hex digits hold fewer than 10 distinct ones
 * with a chance below 1e-10, and repeat a pattern never in practice.
 */
function guessable(text: string): boolean {
  const body = text.replace(/=+$/, '');
  if (new Set(body).size < 10) return true;
  for (let p = 1; p <= body.length / 2; p++) {
    let repeats = true;
    for (let i = p; i < body.length && repeats; i++) repeats = body[i] === body[i - p];
    if (repeats) return true;
  }
  return false;
}

export class RunKey {
  /** Names the key in messages and logs (an HMAC of a constant): it tells nothing of the key. */
  readonly id: string;
  private readonly secret: Buffer;

  constructor(text: string, where = 'the run key') {
    const t = text.trim();
    if (!KEY_TEXT.test(t) || guessable(t)) throw new RunKeyError(`${where} is not a key of 32 random bytes (64 hex digits or 43 base64 characters): ${RUN_KEY_HOW}`);
    this.secret = Buffer.from(t, 'utf8');
    this.id = this.mac('xrepotest run key id').slice(0, 16);
  }

  mac(text: string): string {
    return createHmac('sha256', this.secret).update(text, 'utf8').digest('hex');
  }

  /** Whether `mac` is this key's HMAC of `text` (compared in constant time). */
  verify(text: string, mac: string): boolean {
    if (!/^[0-9a-f]{64}$/.test(mac)) return false;
    return timingSafeEqual(Buffer.from(this.mac(text), 'hex'), Buffer.from(mac, 'hex'));
  }
}

/**
 * The run key from `--run-key-file` (first) or XREPOTEST_RUN_KEY; none is refused, saying how to
 * make one. A key file other users may read is said (`warn`), not refused: a Kubernetes Secret's
 * files are mounted 0644 by default; one they may write is refused.
 */
export function loadRunKey(file: string | undefined, env: NodeJS.ProcessEnv = process.env, warn: (line: string) => void = () => undefined): RunKey {
  if (file) {
    let st: fs.Stats;
    try {
      st = fs.statSync(file);
    } catch (e) {
      throw new RunKeyError(`--run-key-file ${file}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}; ${RUN_KEY_HOW}`);
    }
    if (!st.isFile() || st.size > 4096) throw new RunKeyError(`--run-key-file ${file} is not a key file (a regular file of one line); ${RUN_KEY_HOW}`);
    // Whoever can write it can put in a key they know, and then sign jobs and answers.
    if (st.mode & 0o022) throw new RunKeyError(`--run-key-file ${file}: other users can write it (mode ${(st.mode & 0o777).toString(8)}): chmod 600 ${file}`);
    if (st.mode & 0o077) warn(`warning: the run key file ${file} can be read by other users of this machine (chmod 600 ${file})`);
    return new RunKey(fs.readFileSync(file, 'utf8'), `--run-key-file ${file}`);
  }
  const text = env[RUN_KEY_ENV];
  if (text) return new RunKey(text, RUN_KEY_ENV);
  throw new RunKeyError(`a distributed run needs a run key, shared by the coordinator and its workers and separate from Redis's password (anyone who can write to Redis could otherwise send jobs to the workers and answers to the coordinator): ${RUN_KEY_HOW}`);
}

/** What a signed message is about: the four kinds of the queues, never valid as one another. */
export type MessageKind = 'task-job' | 'task-result' | 'model-call' | 'model-answer';

/** As stored in Redis (a job's data, a job's return value): the signed text and its MAC. */
export interface SignedMessage {
  /** The job format (task-job.ts JOB_FORMAT): a worker of another version says so, not "forged". */
  format: number;
  /** The signing key's id: a message of another run key is said as such. */
  kid: string;
  body: string;
  mac: string;
}

/** What binds a message to its place: read back from the signed body and compared, never trusted from outside it. */
export interface MessageBinding {
  kind: MessageKind;
  /** The BullMQ queue's name (`tasks-go`, `generate-openai`). */
  queue: string;
  jobId: string;
  /** An answer: the nonce of the job or call it answers. */
  reply?: string;
}

interface Body extends MessageBinding {
  nonce: string;
  payload: unknown;
}

const DOMAIN = 'xrepotest signed message v1\n';

/** Signs `payload` for its place; the fresh nonce is returned too (an answer names it as `reply`). */
export function seal(key: RunKey, format: number, binding: MessageBinding, payload: unknown): { message: SignedMessage; nonce: string } {
  const nonce = randomBytes(16).toString('hex');
  const body: Body = { ...binding, nonce, payload };
  const text = JSON.stringify(body);
  return { message: { format, kid: key.id, body: text, mac: key.mac(DOMAIN + text) }, nonce };
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * The payload of a message read from Redis, or why it is refused: not signed, signed with another
 * key, altered, or signed for another kind, queue, job or issue (a replay). Only the signed text is
 * parsed and used: nothing outside it is believed.
 */
export function unseal(key: RunKey, data: unknown, expect: MessageBinding): { payload: unknown; nonce: string } | { problem: string } {
  if (!isObject(data) || typeof data.body !== 'string' || typeof data.mac !== 'string') {
    return { problem: 'it is not signed with a run key (written by someone without the run key, or by an older xrepotest)' };
  }
  if (data.kid !== key.id) {
    return { problem: `it is signed with another run key (key id ${JSON.stringify(String(data.kid).slice(0, 32))}; this process's is ${key.id}): give the coordinator and every worker the same run key` };
  }
  if (!key.verify(DOMAIN + data.body, data.mac)) return { problem: 'its signature does not verify with the run key (forged or altered)' };
  let body: unknown;
  try {
    body = JSON.parse(data.body);
  } catch {
    return { problem: 'its signed text is not JSON' };
  }
  if (!isObject(body) || typeof body.nonce !== 'string') return { problem: 'its signed text is not a message' };
  for (const k of ['kind', 'queue', 'jobId', 'reply'] as const) {
    if (body[k] !== expect[k]) return { problem: `it is signed for another ${k === 'reply' ? 'issue of the job' : k} (${JSON.stringify(body[k])}, not ${JSON.stringify(expect[k])}): a replayed message` };
  }
  return { payload: body.payload, nonce: body.nonce };
}

/**
 * Text read from Redis as one line of plain text, at most `max` characters: control characters (line
 * breaks, terminal escapes, C1 codes) and bidirectional overrides are written as \u escapes. A Redis
 * writer sets failure reasons and job ids; printed as they are, they could clear a line and print a
 * forged summary in the operator's terminal.
 */
export function printable(text: string, max: number): string {
  const cut = text.length > max ? `${text.slice(0, max)}…` : text;
  return cut.replace(/[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * The nonces of the signed jobs this process finished: a finished job put back in the queue (its
 * signed data copied by whoever reads Redis) is refused, so one captured job makes each worker
 * process run it once at most. Retries of an unfinished job (it failed, its worker died) are not
 * finished and run again as before.
 */
export class FinishedMessages {
  private readonly seen = new Set<string>();
  has(nonce: string): boolean {
    return this.seen.has(nonce);
  }
  add(nonce: string): void {
    this.seen.add(nonce);
  }
}
