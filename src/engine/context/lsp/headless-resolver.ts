import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Definition as LspDefinition, Hover, Location as LspLocation, LocationLink, MarkedString, MarkupContent } from 'vscode-languageserver-protocol';
import { adapterForPath } from '../../languages';
import type { LanguageId } from '../../parse/grammars';
import type { Location, Position, SymbolResolver } from '../types';
import { resolveServer, type ServerSpec } from './commands';
import { probePositions } from './probe';
import { fileUri, LanguageServer, uriToFile, type IndexWaitOutcome } from './server';

export interface HeadlessResolverOptions {
  /**
   * The folder no workspace may lie above (usually the checkout). A file's workspace is the nearest
   * folder up to it holding the language's manifest (go.mod, Cargo.toml…), else this folder.
   */
  root?: string;
  /** Starting and indexing one server (default 120 s). */
  indexTimeoutMs?: number;
  /**
   * How long a known query is retried once progress has ended, or when the server reports none
   * (default 20 s): past that the server is taken as ready, and unknown answers stay empty.
   */
  probeTimeoutMs?: number;
  /** One request (default 30 s). */
  requestTimeoutMs?: number;
  /** Where a language's server comes from (tests and other setups may override). */
  serverFor?: (language: LanguageId) => ServerSpec;
  log?: (line: string) => void;
}

interface Started {
  server: LanguageServer;
  indexed: IndexWaitOutcome;
}

/**
 * SymbolResolver over real language servers started headless: one per (language, workspace), started
 * on the first question about a file there and kept until `close`.
 */
export class HeadlessResolver implements SymbolResolver {
  private readonly servers = new Map<string, Promise<Started>>();
  private closed = false;

  constructor(private readonly options: HeadlessResolverOptions = {}) {}

  /** The servers started so far (for reports and tests). */
  async started(): Promise<Array<{ language: LanguageId; workspace: string; indexed: IndexWaitOutcome; pid: number | undefined }>> {
    const out = [];
    for (const p of this.servers.values()) {
      const s = await p.catch(() => null);
      if (s) out.push({ language: s.server.spec.language, workspace: s.server.workspaceDir, indexed: s.indexed, pid: s.server.pid });
    }
    return out;
  }

  definition(file: string, position: Position): Promise<Location[]> {
    return this.locations('textDocument/definition', 'definitionProvider', file, position);
  }

  typeDefinition(file: string, position: Position): Promise<Location[]> {
    return this.locations('textDocument/typeDefinition', 'typeDefinitionProvider', file, position);
  }

  references(file: string, position: Position): Promise<Location[]> {
    return this.locations('textDocument/references', 'referencesProvider', file, position, { context: { includeDeclaration: false } });
  }

  async hover(file: string, position: Position): Promise<string | null> {
    const server = await this.serverForFile(file);
    // TypeProf never answers a method it did not announce: ask only what the server offers.
    if (!server.capabilities.hoverProvider) return null;
    await server.open(file);
    const h = await server.request<Hover | null>('textDocument/hover', { textDocument: { uri: fileUri(file) }, position }, this.requestTimeout());
    return h ? hoverText(h.contents) : null;
  }

  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.servers.values()];
    this.servers.clear();
    await Promise.all(all.map(async (p) => (await p.catch(() => null))?.server.shutdown()));
  }

  private requestTimeout(): number {
    return this.options.requestTimeoutMs ?? 30_000;
  }

  private async locations(method: string, capability: string, file: string, position: Position, extra: object = {}): Promise<Location[]> {
    const server = await this.serverForFile(file);
    if (!(server.capabilities as Record<string, unknown>)[capability]) return [];
    await server.open(file);
    const answer = await server.request<LspDefinition | LocationLink[] | null>(
      method,
      { textDocument: { uri: fileUri(file) }, position, ...extra },
      this.requestTimeout(),
    );
    return toLocations(answer);
  }

  private languageOf(file: string): LanguageId {
    const adapter = adapterForPath(file);
    if (!adapter) throw new Error(`no language for ${file}`);
    return adapter.id;
  }

  /** The nearest folder from the file up to the root that holds one of the language's manifests. */
  workspaceOf(file: string): string {
    const manifests = adapterForPath(file)?.toolchain.manifests ?? [];
    const root = this.options.root ? path.resolve(this.options.root) : undefined;
    for (let dir = path.dirname(path.resolve(file)); ; dir = path.dirname(dir)) {
      if (manifests.some((m) => fs.existsSync(path.join(dir, m)))) return dir;
      if (dir === root || path.dirname(dir) === dir) break;
    }
    return root ?? path.dirname(path.resolve(file));
  }

  private async serverForFile(file: string): Promise<LanguageServer> {
    if (this.closed) throw new Error('the resolver is closed');
    const language = this.languageOf(file);
    const workspace = this.workspaceOf(file);
    const key = `${language}\0${workspace}`;
    let p = this.servers.get(key);
    if (!p) {
      p = this.start(language, workspace, file);
      this.servers.set(key, p);
    }
    return (await p).server;
  }

  private async start(language: LanguageId, workspace: string, firstFile: string): Promise<Started> {
    const spec = (this.options.serverFor ?? resolveServer)(language);
    const timeoutMs = this.options.indexTimeoutMs ?? 120_000;
    const server = await LanguageServer.start(spec, workspace, { initializeTimeoutMs: timeoutMs, log: this.options.log });
    try {
      await server.open(firstFile);
      // The known query: a call in the file to a function the file defines must resolve once indexed.
      const at = await probePositions(language, fs.readFileSync(firstFile, 'utf8'));
      const resolves = async (position: Position): Promise<boolean> =>
        toLocations(await server.request('textDocument/definition', { textDocument: { uri: fileUri(firstFile) }, position }, this.requestTimeout())).length > 0;
      const probe = at.length > 0 ? async () => (await Promise.all(at.map((p) => resolves(p).catch(() => false)))).some(Boolean) : undefined;
      const indexed = await server.waitUntilIndexed({ timeoutMs, probe, probeTimeoutMs: this.options.probeTimeoutMs ?? 20_000 });
      this.options.log?.(`[${spec.name}] ready on ${workspace}: ${indexed}`);
      if (this.closed) await server.shutdown();
      return { server, indexed };
    } catch (e) {
      await server.shutdown();
      throw e;
    }
  }
}

/** Locations from any of the three shapes a definition answer takes; links by their name range. */
export function toLocations(answer: LspDefinition | LocationLink[] | null | undefined): Location[] {
  if (!answer) return [];
  const list: Array<LspLocation | LocationLink> = Array.isArray(answer) ? answer : [answer];
  return list.map((l) =>
    'targetUri' in l ? { file: uriToFile(l.targetUri), range: l.targetSelectionRange ?? l.targetRange } : { file: uriToFile(l.uri), range: l.range },
  );
}

function hoverText(contents: Hover['contents']): string {
  const one = (c: MarkedString | MarkupContent): string => (typeof c === 'string' ? c : c.value);
  return Array.isArray(contents) ? contents.map(one).join('\n\n') : one(contents);
}
