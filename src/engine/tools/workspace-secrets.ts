/**
 * The values a workspace keeps in its secret-looking files. The sandbox copy holds them (a `.env`
 * is copied like any file), so a test an agent sends can read one and print it, plain or encoded;
 * `callTool` registers these values for redaction before a call runs, so neither what goes back nor
 * what is kept holds them (util/redact.ts recognises their simple encodings too).
 *
 * Files are chosen by name, as people name them: `.env` and its variants, package-manager and
 * git credentials, netrc, pgpass, htpasswd, `credentials` / `secrets.*`, private keys. In a
 * name=value file every value counts, whatever its name (`DATABASE_URL` holds a password as often as
 * `DB_PASSWORD` does), except a few ubiquitous non-secrets; in a key file every line does. Secrets
 * kept in files named otherwise (a `config.yaml` with a password in it) are not found: that residual
 * is in docs/agents.md.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { NOT_COPIED } from '../execute/sandbox';
import { holdsPathOrSwitch } from '../util/redact';

/** Files of name=value (or name: value) lines, netrc words or `user:password` lines. */
const ASSIGNMENT_FILE =
  /^(?:\.env(?:\..+)?|.+\.env|\.envrc|\.npmrc|\.yarnrc(?:\.yml)?|\.pypirc|\.netrc|_netrc|\.git-credentials|\.pgpass|\.htpasswd|\.dockercfg|\.s3cfg|\.boto|credentials|.+\.credentials|(?:secrets?|credentials?)(?:\.[a-z0-9]+)+|\.secrets?)$/i;

/** Files whose every line is secret: private keys. */
const KEY_FILE = /^(?:id_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?|.+\.(?:pem|key|ppk|p8))$/i;

/** Values of ten characters or so that every configuration holds and no one keeps secret. */
const ORDINARY_VALUES = new Set(['localhost', 'production', 'development', 'staging', '127.0.0.1', 'undefined']);

export interface WorkspaceSecretLimits {
  /** Folder entries looked at before the scan stops (a huge tree is not walked whole on every call). */
  maxEntries: number;
  /** A secret file larger than this is not a secret file (a dump named `.env.bak`): skipped. */
  maxFileBytes: number;
}

export const DEFAULT_SECRET_SCAN: WorkspaceSecretLimits = { maxEntries: 100_000, maxFileBytes: 256 * 1024 };

export interface WorkspaceSecrets {
  values: string[];
  /** Relative paths of the files they came from. */
  files: string[];
  /** The walk stopped at `maxEntries`: files past that point were not read. */
  incomplete: boolean;
}

/** A value as written: quotes, a trailing comma (JSON), an unquoted trailing comment taken off. */
function unquoted(raw: string): string {
  const v = raw.trim().replace(/,$/, '').trim();
  const q = /^(["'`])([\s\S]*)\1$/.exec(v);
  if (q) return q[2];
  return v.replace(/\s+#.*$/, '');
}

/** The secret parts of one line of a name=value file (dotenv, ini, YAML, JSON, npmrc, netrc, pgpass, git-credentials). */
function lineValues(line: string, fileName: string): string[] {
  const out: string[] = [];
  // `NAME=value`, `export NAME=value`, `name = value`; then `name: value`, `"name": "value",`; then anything before a `=` (npmrc's `//host/:_authToken=…`).
  const assigned = /^(?:export\s+)?([A-Za-z_][\w.-]*)\s*=(.*)$/.exec(line) ?? /^["']?([\w.-]+)["']?\s*:(.*)$/.exec(line) ?? /^([^=]+)=(.*)$/.exec(line);
  if (assigned && !holdsPathOrSwitch(assigned[1].trim())) out.push(unquoted(assigned[2]));
  // A bare line in a secrets file (a token alone) is the secret; an ini section is not.
  else if (!assigned && !line.startsWith('[')) out.push(line);
  // URLs with a password in them: scheme://user:password@host
  for (const m of line.matchAll(/\/\/[^\s:@/]*:([^\s@/]+)@/g)) out.push(m[1]);
  // netrc: machine h login u password p
  for (const m of line.matchAll(/\b(?:password|passwd|account|token)\s+(\S+)/gi)) out.push(m[1]);
  // pgpass: host:port:database:user:password
  if (/^\.?pgpass$/i.test(fileName)) out.push(line.split(':').slice(4).join(':'));
  return out;
}

/** The secret values one file holds. */
export function secretValuesIn(text: string, fileName: string): string[] {
  const key = KEY_FILE.test(fileName);
  const out: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || /^[#;]/.test(line)) continue;
    if (key) {
      // The armour and its headers are the same in every key; the body lines are the key.
      if (!/^-----(?:BEGIN|END) /.test(line) && !/^[A-Za-z-]+: /.test(line)) out.push(line);
    } else out.push(...lineValues(line, fileName));
  }
  return out.filter((v) => !ORDINARY_VALUES.has(v.toLowerCase()));
}

export function isSecretFileName(name: string): boolean {
  return ASSIGNMENT_FILE.test(name) || KEY_FILE.test(name);
}

/** A regular file's text, when it is not larger than the limit. */
function readSmall(file: string, maxBytes: number): string | null {
  try {
    const st = fs.statSync(file);
    return st.isFile() && st.size <= maxBytes ? fs.readFileSync(file, 'utf8') : null;
  } catch {
    return null;
  }
}

/**
 * The secret values in the workspace's secret-looking files, in the folders a sandbox copies
 * (`NOT_COPIED` is left out: no test sees it). Links are not followed, except a secret-named link to
 * a file inside the workspace: the copy keeps such a link, so the test reads what it leads to.
 */
export function workspaceSecrets(root: string, limits: WorkspaceSecretLimits = DEFAULT_SECRET_SCAN): WorkspaceSecrets {
  const found: WorkspaceSecrets = { values: [], files: [], incomplete: false };
  let rootReal: string;
  try {
    rootReal = fs.realpathSync(root);
  } catch {
    return found; // no workspace, nothing in it to copy or to print
  }
  const inside = (p: string): boolean => p === rootReal || p.startsWith(rootReal + path.sep);
  const folders = [root];
  let seen = 0;
  while (folders.length) {
    const dir = folders.pop()!;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      continue; // unreadable here is unreadable to the copy too
    }
    for (const e of entries) {
      if (++seen > limits.maxEntries) {
        found.incomplete = true;
        return found;
      }
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (!NOT_COPIED.has(e.name)) folders.push(p);
        continue;
      }
      if (!isSecretFileName(e.name) || !(e.isFile() || e.isSymbolicLink())) continue;
      let file = p;
      if (e.isSymbolicLink()) {
        try {
          file = fs.realpathSync(p);
        } catch {
          continue;
        }
        if (!inside(file)) continue;
      }
      const text = readSmall(file, limits.maxFileBytes);
      if (text === null) continue;
      found.files.push(path.relative(root, p));
      found.values.push(...secretValuesIn(text, e.name));
    }
  }
  return found;
}
