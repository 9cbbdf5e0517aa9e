/**
 * Known secrets out of text that leaves the engine's hands: error messages, the repair prompt (what a
 * test printed goes back to the model), stored replies, generations and results. A test runs with
 * the host's files readable (local executor) and a provider can echo request headers, so anything
 * either of them produced may carry a key.
 */

export const REDACTED = '«redacted»';

/** Shorter values would redact ordinary words; real keys and passwords worth hiding are longer. */
const MIN_SECRET_CHARS = 8;

const registered = new Set<string>();

/** Remembers a key (a configured API key) so that `redact` removes it wherever it appears. */
export function registerSecret(secret: string | undefined | null): void {
  if (secret && secret.length >= MIN_SECRET_CHARS) registered.add(secret);
}

/**
 * Environment variable names that hold secrets: KEY / PASS as a whole `_`-separated word (so
 * KEYBOARD or PASSAGE do not count), the longer words anywhere in the name.
 */
const SECRET_NAME = /(?:^|_)(?:KEY|KEYS|PASS|PASSWD|PWD)(?:_|$)|TOKEN|SECRET|PASSWORD|PASSPHRASE|CREDENTIAL|APIKEY|API_KEY|PRIVATE|AUTH_|_AUTH$|COOKIE|SESSION/i;

/** Names that look secret but hold paths or switches, whose values appear in ordinary output. */
const NOT_SECRET_NAME = /^(?:PWD|OLDPWD|SSH_AUTH_SOCK|GPG_AGENT_INFO|XDG_SESSION_.*|DBUS_SESSION_BUS_ADDRESS|SESSION_MANAGER|.*_(?:FILE|PATH|DIR|HOME|SOCK))$/i;

/** Whether a variable of this name holds a path or a switch rather than a secret (its value is ordinary text). */
export function holdsPathOrSwitch(name: string): boolean {
  return NOT_SECRET_NAME.test(name);
}

/** Values of the environment's secret-looking variables (the values, never the names). */
export function environmentSecrets(env: NodeJS.ProcessEnv = process.env): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (!value || value.length < MIN_SECRET_CHARS) continue;
    if (SECRET_NAME.test(name) && !NOT_SECRET_NAME.test(name)) out.push(value);
  }
  return out;
}

/**
 * Shapes of credentials recognisable without being told: provider keys, GitHub / GitLab / Slack /
 * Google / AWS tokens, JWTs, PEM private keys, and credential headers (the header name is kept).
 */
const TOKEN_SHAPES: RegExp[] = [
  /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)/g,
  /\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{8,}/g, // Anthropic and OpenAI
  /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}/g, // GitHub tokens
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bglpat-[A-Za-z0-9_-]{20,}/g, // GitLab
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, // Slack
  /\bAIza[0-9A-Za-z_-]{35}/g, // Google API keys
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, // AWS access key ids
  /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, // JWTs
];
const BEARER = /\b(Bearer)\s+[A-Za-z0-9._~+/-]{8,}=*/gi;
const CREDENTIAL_HEADER = /\b(x-api-key|api-key|authorization)(["']?\s*[:=]\s*["']?)[^\s"',}]{8,}/gi;

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** Between two characters of an encoding: the line break of a wrapped dump (`base64 -w 76`, `xxd -p`). */
const WRAP = '(?:\\r?\\n)?';

/**
 * The characters of base64(k bytes, then the secret) that depend on the secret's bytes alone, so
 * they appear in any base64 text that holds the secret k bytes past a 3-byte boundary, whatever
 * comes before or after it. Character i carries bits [6i, 6i+6); the secret has [8k, 8k+8n).
 */
function base64Core(bytes: Buffer, k: number): string {
  const encoded = Buffer.concat([Buffer.alloc(k), bytes]).toString('base64');
  return encoded.slice(Math.ceil((8 * k) / 6), Math.floor((8 * (k + bytes.length)) / 6));
}

/**
 * What a secret is recognised as, as regular-expression sources: as it is, reversed, JSON-escaped
 * (Go's `\u003c` for `<>&` too), URL-encoded; hex in either case; base64 at each of the three byte
 * alignments, standard or URL-safe; the encodings also wrapped over lines. A test reads a file as
 * easily as it encodes it, so the plain value alone would be a promise kept only against the
 * careless. An encoded secret loses its whole core: at most a few bits of its first and last bytes
 * stay next to «redacted».
 */
export function secretForms(secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1);
  const literal = new Set([secret, [...secret].reverse().join(''), json, json.replace(/[<>&]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`), encodeURIComponent(secret)]);
  const bytes = Buffer.from(secret, 'utf8');
  const hex = [...bytes.toString('hex')].map((c) => (c >= 'a' ? `[${c}${c.toUpperCase()}]` : c)).join(WRAP);
  const base64 = [0, 1, 2].map((k) => [...base64Core(bytes, k)].map((c) => (c === '+' ? '[+-]' : c === '/' ? '[/_]' : c)).join(WRAP));
  return [...[...literal].map(escapeRegExp), hex, ...base64];
}

/** One expression per secret, kept: redact runs on every string a tool returns. */
const formsCache = new Map<string, RegExp>();

function formsOf(secret: string): RegExp {
  let re = formsCache.get(secret);
  if (!re) {
    if (formsCache.size >= 1000) formsCache.clear(); // secrets are few; this bounds a process that is handed many
    re = new RegExp(secretForms(secret).join('|'), 'g');
    formsCache.set(secret, re);
  }
  return re;
}

/**
 * `text` with every known secret replaced by «redacted»: the registered keys (and a workspace's
 * secret files, registered by the agents' tools), `extraSecrets`, the values of secret-looking
 * environment variables, each also in its simple encodings (`secretForms`); and anything shaped like
 * a token, as it is. Idempotent.
 */
export function redact(text: string, extraSecrets: readonly (string | undefined | null)[] = []): string {
  if (!text) return text;
  // Longest first, so a secret that contains another is replaced whole.
  const literal = [...registered, ...environmentSecrets(), ...extraSecrets.filter((s): s is string => !!s && s.length >= MIN_SECRET_CHARS)].sort((a, b) => b.length - a.length);
  let out = text;
  for (const s of literal) out = out.replace(formsOf(s), REDACTED);
  for (const shape of TOKEN_SHAPES) out = out.replace(shape, REDACTED);
  out = out.replace(BEARER, `$1 ${REDACTED}`);
  out = out.replace(CREDENTIAL_HEADER, `$1$2${REDACTED}`);
  return out;
}
