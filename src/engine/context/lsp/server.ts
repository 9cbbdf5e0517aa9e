import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CancellationTokenSource, createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node';
import type {
  ConfigurationParams,
  DidOpenTextDocumentParams,
  InitializeParams,
  InitializeResult,
  ProgressToken,
  ServerCapabilities,
  WorkDoneProgressBegin,
  WorkDoneProgressEnd,
  WorkDoneProgressReport,
} from 'vscode-languageserver-protocol';
import { URI } from 'vscode-uri';
import type { ServerSpec } from './commands';

export { resolveServer, ServerMissingError, type ServerSpec } from './commands';

export interface StartOptions {
  /** How long initialize may take. */
  initializeTimeoutMs?: number;
  /** Receives the server's stderr and log messages, line by line (for debugging). */
  log?: (line: string) => void;
}

export interface IndexWaitOptions {
  /** The most the whole wait may take. */
  timeoutMs: number;
  /** A known query that answers non-empty once the server knows the workspace; retried until it does. */
  probe?: () => Promise<boolean>;
  /** How long to wait for a first sign of indexing (work-done progress) before relying on the probe. */
  graceMs?: number;
  /** The most the probe is retried (within timeoutMs); a probe that never resolves must not cost the whole timeout. */
  probeTimeoutMs?: number;
}

export type IndexWaitOutcome = 'progress' | 'probe' | 'timeout' | 'none';

/** A document URI for an absolute path, and back (normalising `spec/../lib/x.rb` as TypeProf sends). */
export function fileUri(file: string): string {
  return URI.file(file).toString();
}

export function uriToFile(uri: string): string {
  return path.normalize(URI.parse(uri).fsPath);
}

const STDERR_KEEP = 4000;

/** `$/progress` params (the protocol package types them per token; work-done progress is all we track). */
interface ProgressParams<T> {
  token: ProgressToken;
  value: T;
}

/** Live servers, so that a process exiting without shutting them down still kills them. */
const live = new Set<LanguageServer>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const s of live) s.killNow();
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * One language server process over stdio, spoken to with vscode-jsonrpc. It runs in its own process
 * group so that shutting down also ends what it started (cargo metadata, proc-macro servers).
 */
export class LanguageServer {
  private readonly opened = new Map<string, number>();
  /** Work-done progress tokens begun and not yet ended. */
  private readonly activeProgress = new Set<ProgressToken>();
  private sawProgress = false;
  private lastProgressAt = 0;
  /** rust-analyzer's `experimental/serverStatus`: null until it says anything. */
  private quiescent: boolean | null = null;
  private stderrTail = '';
  private exitCode: number | null | undefined = undefined;
  private readonly exitPromise: Promise<void>;
  capabilities: ServerCapabilities = {};

  private constructor(
    readonly spec: ServerSpec,
    readonly workspaceDir: string,
    private readonly child: ChildProcess,
    private readonly connection: MessageConnection,
    private readonly scratchDir: string,
    private readonly log: (line: string) => void,
  ) {
    this.exitPromise = new Promise((resolve) => {
      child.once('exit', (code) => {
        this.exitCode = code;
        resolve();
      });
    });
  }

  /** Starts the server on a workspace folder and initializes it; throws with its stderr when it fails. */
  static async start(spec: ServerSpec, workspaceDir: string, options: StartOptions = {}): Promise<LanguageServer> {
    const scratchDir = fs.mkdtempSync(path.join(os.tmpdir(), `xrt-lsp-${spec.language}-`));
    const child = spawn(spec.command, spec.args, {
      cwd: workspaceDir,
      env: { ...process.env, ...spec.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    const connection = createMessageConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
    const log = options.log ?? (() => undefined);
    const server = new LanguageServer(spec, path.resolve(workspaceDir), child, connection, scratchDir, log);
    live.add(server);
    installExitHook();
    try {
      await server.initialize(options.initializeTimeoutMs ?? 60_000);
    } catch (e) {
      await server.shutdown();
      throw new Error(`${spec.name} did not start on ${workspaceDir}: ${(e as Error).message}${server.stderrSummary()}`);
    }
    return server;
  }

  private stderrSummary(): string {
    const tail = this.stderrTail.trim();
    return tail ? `\n${this.spec.name} stderr (last lines):\n${tail.split('\n').slice(-15).join('\n')}` : '';
  }

  private wire(): void {
    this.child.stderr!.setEncoding('utf8');
    this.child.stderr!.on('data', (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-STDERR_KEEP);
      for (const line of chunk.split('\n')) if (line.trim()) this.log(`[${this.spec.name} stderr] ${line}`);
    });
    // A server that dies makes writes fail with EPIPE; the exit is what we report.
    this.child.stdin!.on('error', () => undefined);
    this.child.on('error', (e) => {
      this.stderrTail += `\n${e.message}`;
      this.exitCode ??= -1;
    });
    const c = this.connection;
    c.onNotification('$/progress', (p: ProgressParams<WorkDoneProgressBegin | WorkDoneProgressReport | WorkDoneProgressEnd>) => this.onProgress(p));
    c.onNotification('experimental/serverStatus', (p: { quiescent?: boolean }) => {
      if (typeof p.quiescent === 'boolean') this.quiescent = p.quiescent;
    });
    c.onNotification('window/logMessage', (p: { message: string }) => this.log(`[${this.spec.name}] ${p.message}`));
    c.onNotification((method: string) => this.log(`[${this.spec.name} notification] ${method}`));
    c.onRequest('window/workDoneProgress/create', () => null);
    c.onRequest('client/registerCapability', () => null);
    c.onRequest('client/unregisterCapability', () => null);
    c.onRequest('workspace/workspaceFolders', () => [{ uri: fileUri(this.workspaceDir), name: path.basename(this.workspaceDir) }]);
    c.onRequest('workspace/configuration', (p: ConfigurationParams) => p.items.map((item) => this.setting(item.section)));
    c.onRequest('window/showMessageRequest', () => null);
    c.onRequest('workspace/applyEdit', () => ({ applied: false }));
    c.onRequest((method: string) => {
      this.log(`[${this.spec.name} request] ${method}`);
      return null;
    });
    c.listen();
  }

  private setting(section: string | undefined): unknown {
    const all = this.spec.settings ?? {};
    if (!section) return all;
    let v: unknown = all;
    for (const part of section.split('.')) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[part] : undefined;
    return v ?? null;
  }

  private onProgress(p: ProgressParams<WorkDoneProgressBegin | WorkDoneProgressReport | WorkDoneProgressEnd>): void {
    const kind = (p.value as { kind?: string } | undefined)?.kind;
    if (kind === 'begin') {
      this.activeProgress.add(p.token);
      this.sawProgress = true;
    } else if (kind === 'end') {
      this.activeProgress.delete(p.token);
    }
    this.lastProgressAt = Date.now();
    const v = p.value as { title?: string; message?: string };
    this.log(`[${this.spec.name} progress] ${kind} ${v.title ?? ''} ${v.message ?? ''}`.trim());
  }

  private async initialize(timeoutMs: number): Promise<void> {
    this.wire();
    const root = fileUri(this.workspaceDir);
    const params: InitializeParams = {
      processId: process.pid,
      clientInfo: { name: 'xrepotest' },
      rootUri: root,
      rootPath: this.workspaceDir,
      workspaceFolders: [{ uri: root, name: path.basename(this.workspaceDir) }],
      initializationOptions: this.spec.initializationOptions?.(this.scratchDir),
      capabilities: {
        window: { workDoneProgress: true },
        workspace: { configuration: true, workspaceFolders: true },
        textDocument: {
          synchronization: { didSave: false, dynamicRegistration: false },
          definition: { linkSupport: true },
          typeDefinition: { linkSupport: true },
          references: {},
          hover: { contentFormat: ['markdown', 'plaintext'] },
          documentSymbol: { hierarchicalDocumentSymbolSupport: true },
        },
        experimental: { serverStatusNotification: true },
      },
    };
    const result = await this.request<InitializeResult>('initialize', params, timeoutMs);
    this.capabilities = result?.capabilities ?? {};
    await this.connection.sendNotification('initialized', {});
  }

  /** Whether the process has exited. */
  get exited(): boolean {
    return this.exitCode !== undefined;
  }

  /** A request that gives up (and cancels it at the server) after timeoutMs. */
  async request<R>(method: string, params: unknown, timeoutMs: number): Promise<R> {
    if (this.exited) throw new Error(`${this.spec.name} has exited (code ${this.exitCode})${this.stderrSummary()}`);
    const cts = new CancellationTokenSource();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        cts.cancel();
        reject(new Error(`${this.spec.name}: ${method} did not answer within ${timeoutMs} ms`));
      }, timeoutMs);
    });
    const exited = this.exitPromise.then(() => {
      throw new Error(`${this.spec.name} exited (code ${this.exitCode}) during ${method}${this.stderrSummary()}`);
    });
    try {
      return await Promise.race([this.connection.sendRequest<R>(method, params, cts.token), timeout, exited]);
    } finally {
      clearTimeout(timer);
      cts.dispose();
    }
  }

  /** Opens a document (once) with its text from disk; the language id is the server's. */
  async open(file: string): Promise<void> {
    const abs = path.resolve(file);
    if (this.opened.has(abs)) return;
    const text = fs.readFileSync(abs, 'utf8');
    this.opened.set(abs, 1);
    const params: DidOpenTextDocumentParams = { textDocument: { uri: fileUri(abs), languageId: this.spec.languageId, version: 1, text } };
    await this.connection.sendNotification('textDocument/didOpen', params);
  }

  /**
   * Waits until the server has indexed the workspace: its work-done progress has begun and all of it
   * ended (rust-analyzer: until it says it is quiescent), then — since not every server reports
   * progress, and some answer empty for a while after it ends — until the probe answers non-empty.
   */
  async waitUntilIndexed(options: IndexWaitOptions): Promise<IndexWaitOutcome> {
    const deadline = Date.now() + options.timeoutMs;
    const graceEnd = Date.now() + Math.min(options.graceMs ?? 1500, options.timeoutMs);
    const settledFor = 300;
    let outcome: IndexWaitOutcome = 'none';
    while (Date.now() < deadline && !this.exited) {
      if (this.quiescent === true && this.activeProgress.size === 0) {
        outcome = 'progress';
        break;
      }
      if (this.quiescent === null && this.sawProgress && this.activeProgress.size === 0 && Date.now() - this.lastProgressAt >= settledFor) {
        outcome = 'progress';
        break;
      }
      if (!this.sawProgress && this.quiescent === null && Date.now() >= graceEnd) break;
      await sleep(50);
    }
    if (this.exited) throw new Error(`${this.spec.name} exited (code ${this.exitCode}) while indexing${this.stderrSummary()}`);
    if (!options.probe) return Date.now() >= deadline ? 'timeout' : outcome;
    const probeDeadline = Math.min(deadline, Date.now() + (options.probeTimeoutMs ?? options.timeoutMs));
    for (let delay = 100; Date.now() < probeDeadline; delay = Math.min(delay * 2, 1000)) {
      if (await options.probe().catch(() => false)) return outcome === 'progress' ? 'progress' : 'probe';
      await sleep(Math.min(delay, Math.max(0, probeDeadline - Date.now())));
    }
    return 'timeout';
  }

  /**
   * shutdown, exit, then the process group is killed if it has not gone within a few seconds; the
   * scratch folder is removed. Safe to call twice.
   */
  async shutdown(graceMs = 3000): Promise<void> {
    if (!this.exited) {
      try {
        await this.request('shutdown', null, graceMs);
        await this.connection.sendNotification('exit');
      } catch {
        // A server that does not answer shutdown is killed below.
      }
      await Promise.race([this.exitPromise, sleep(graceMs)]);
    }
    this.killGroup('SIGTERM');
    if (!this.exited) await Promise.race([this.exitPromise, sleep(graceMs)]);
    this.killGroup('SIGKILL');
    if (!this.exited) await Promise.race([this.exitPromise, sleep(graceMs)]);
    this.connection.dispose();
    live.delete(this);
    fs.rmSync(this.scratchDir, { recursive: true, force: true });
  }

  /** Children the server left (cargo, proc-macro servers) share its process group. */
  private killGroup(signal: NodeJS.Signals): void {
    const pid = this.child.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // The group is gone.
    }
  }

  /** For the exit hook: no waiting is possible there. */
  killNow(): void {
    this.killGroup('SIGKILL');
    fs.rmSync(this.scratchDir, { recursive: true, force: true });
  }

  /** The process id (tests check that nothing is left running). */
  get pid(): number | undefined {
    return this.child.pid;
  }
}
