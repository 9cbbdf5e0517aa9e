import type { TaskSource } from './task-job';

/**
 * Which sources a worker fetches (`xrepotest worker --allow-source …`): its operator's choice, not the
 * job's. A source names what the worker reads with its own access — a `file://` path of its machine,
 * a host of its network, a repository its SSH keys or ~/.netrc open — and a test run against it sends
 * what it read back to the coordinator. By default: public `https://` hosts and published images
 * pinned by digest; `file://`, `ssh://`, `git://`, `http://` only where the operator names them.
 */

export const DEFAULT_ALLOWED_SOURCES: readonly string[] = ['https://', 'image:'];

const SCHEMES = new Set(['https', 'http', 'ssh', 'git', 'file']);

/** One `--allow-source`: a scheme, optionally a host (with its port) and a path prefix (whole segments). */
export interface SourceRule {
  text: string;
  scheme: string;
  /** Any host when absent (`https://`); `''` for `file:///…`. */
  host?: string;
  path: string[];
}

/** Docker's defaults spelled out, so `ubuntu` and `docker.io/library/ubuntu` are one name. */
function imageSegments(name: string, rule: boolean): string[] {
  const parts = name.split('/').filter(Boolean);
  if (!parts.length) return parts;
  const first = parts[0];
  if (first.includes('.') || first.includes(':') || first === 'localhost') return [first.toLowerCase(), ...parts.slice(1)];
  return rule || parts.length > 1 ? ['docker.io', ...parts] : ['docker.io', 'library', ...parts];
}

/**
 * A URL's scheme, host and path segments, or why it is refused. Only what parses one way is taken:
 * git reads the text as given while URL parsing would resolve `..` and `%2e%2e`, so a URL holding
 * either (or a query, a backslash, blanks) is refused rather than interpreted.
 */
function urlParts(url: string): { scheme: string; host: string; path: string[] } | string {
  // `<transport>::<address>` makes git run a helper (`ext::` runs a command): never a source.
  if (/^[^/]*::/.test(url)) return 'it names a git transport helper (<transport>::)';
  if (/[%\\?#\s\x00-\x1f\x7f]/.test(url)) return 'it holds %, \\, ?, #, blanks or control characters';
  let scheme: string;
  let host: string;
  let rawPath: string;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return 'it is not a URL';
    }
    scheme = u.protocol.replace(/:$/, '').toLowerCase();
    host = u.host.toLowerCase();
    rawPath = url.replace(/^[^:]+:\/\/[^/]*/, '');
  } else {
    // scp-like `[user@]host:path`: git speaks SSH to it.
    const scp = /^(?:[\w.-]+@)?([\w.-]+):(.*)$/.exec(url);
    if (!scp) return 'it is not a URL';
    scheme = 'ssh';
    host = scp[1].toLowerCase();
    rawPath = scp[2];
  }
  const path = rawPath.split('/').filter(Boolean);
  if (path.some((s) => s === '.' || s === '..')) return 'its path holds . or .. segments';
  return { scheme, host, path };
}

/** `--allow-source TEXT`, or why it is not one. */
export function parseSourceRule(text: string): SourceRule {
  const how = 'use a scheme (https://), a host (https://github.com), a path (file:///srv/repos/), or image: (image:registry.example.org/team)';
  if (text === 'image:' || text.startsWith('image:')) {
    return { text, scheme: 'image', path: imageSegments(text.slice('image:'.length), true) };
  }
  const m = /^([a-z]+):\/\/(.*)$/i.exec(text);
  if (!m || !SCHEMES.has(m[1].toLowerCase())) throw new Error(`--allow-source ${JSON.stringify(text)}: ${how}; schemes: ${[...SCHEMES].join(', ')}`);
  const scheme = m[1].toLowerCase();
  if (!m[2]) return { text, scheme, path: [] };
  const parts = urlParts(text);
  if (typeof parts === 'string') throw new Error(`--allow-source ${JSON.stringify(text)}: ${parts}; ${how}`);
  return { text, scheme, host: parts.host, path: parts.path };
}

export function parseSourceRules(texts: readonly string[] | undefined): SourceRule[] {
  return (texts?.length ? texts : DEFAULT_ALLOWED_SOURCES).map(parseSourceRule);
}

const startsWith = (path: readonly string[], prefix: readonly string[]): boolean => prefix.every((s, i) => path[i] === s);

/** Why this worker does not fetch `source`, or null: it matches none of its operator's rules. */
export function sourceProblem(source: TaskSource, rules: readonly SourceRule[]): string | null {
  const allowed = rules.map((r) => r.text).join(', ') || 'none';
  if (source.kind === 'image') {
    const name = imageSegments(source.image.split('@')[0], false);
    if (rules.some((r) => r.scheme === 'image' && startsWith(name, r.path))) return null;
    return `the job's image ${source.image.split('@')[0]} is not from a registry this worker was allowed (--allow-source ${allowed}); its operator can allow it with --allow-source image:${name.slice(0, -1).join('/')}`;
  }
  const parts = urlParts(source.url);
  if (typeof parts === 'string') return `the job's source URL is refused: ${parts}`;
  if (rules.some((r) => r.scheme === parts.scheme && (r.host === undefined || r.host === parts.host) && startsWith(parts.path, r.path))) return null;
  const suggestion = parts.scheme === 'file' ? `file:///${parts.path.slice(0, -1).join('/')}/` : `${parts.scheme}://${parts.host}`;
  return `the job's source ${source.url} is not one this worker was allowed to fetch (--allow-source ${allowed}); its operator can allow it with --allow-source ${suggestion}`;
}
