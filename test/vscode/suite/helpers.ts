/** Shared by the tests that run inside VS Code's extension host. */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { INPUT_MARKER, SCREENSHOT_MARKER, SCREENSHOTS_ENV, type InputReceipt, type InputRequest, type ScreenshotReceipt, type ScreenshotRequest } from '../protocol';
import { strictRefusal, strictSkips } from '../../helpers/skip-policy';

/** The repository root, from the compiled suite under out/test/vscode/suite. */
export const REPO_ROOT = path.resolve(__dirname, '..', '..', '..', '..');
export const EXTENSION_ID = 'xrepotest.xrepotest';
export const CODE_SERVER = path.join(REPO_ROOT, '.vscode-test', 'code-server', 'node_modules', '.bin', 'code-server');

/** The folder the runner opened: a throwaway copy of a fixture project. */
export function workspaceRoot(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) throw new Error('no workspace folder is open (the runner opens a fixture copy)');
  return folder.uri.fsPath;
}

export async function openInEditor(relPath: string): Promise<vscode.TextEditor> {
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(path.join(workspaceRoot(), relPath)));
  return vscode.window.showTextDocument(doc, { preview: false });
}

/** Polls `probe` until it returns something other than undefined; the language server starts lazily. */
export async function waitFor<T>(what: string, timeoutMs: number, probe: () => T | undefined | Promise<T | undefined>): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export interface ProcessResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The extension host's environment minus what ties a child to the running code-server: with
 * CODE_SERVER_PARENT_PID a code-server started from here takes itself for the server's child
 * ("not spawned with IPC"), with VSCODE_IPC_HOOK_CLI it hands its work to the running server.
 */
const INHERITED_FROM_SERVER = /^(VSCODE_|CODE_SERVER_|ELECTRON_)|^NODE_EXEC_PATH$/;

/** Runs a program to completion without a shell. */
export function runProcess(file: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<ProcessResult> {
  const env = Object.fromEntries(Object.entries({ ...process.env, ...options.env }).filter(([k]) => !INHERITED_FROM_SERVER.test(k)));
  return new Promise((resolve) => {
    execFile(file, args, { cwd: options.cwd ?? REPO_ROOT, env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

export interface CliTask {
  function_name: string;
  file_path: string;
  function_component: { name: string; start_line: number; end_line: number };
}

/** The focal functions the engine's CLI (dist/cli.js, another process) extracts from a folder. */
export async function extractWithCli(dir: string, extraArgs: string[] = []): Promise<CliTask[]> {
  const r = await runProcess(process.execPath, [path.join(REPO_ROOT, 'dist', 'cli.js'), 'extract', dir, '--no-progress', ...extraArgs]);
  if (r.code !== 0) throw new Error(`xrepotest extract failed (${r.code}): ${r.stderr}`);
  return r.stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as CliTask);
}

/**
 * Asks the runner (outside VS Code) for a screenshot of the workbench and waits for its receipt.
 * The request travels through the extension host's log; the receipt comes back as a file.
 */
export async function screenshot(request: ScreenshotRequest, timeoutMs = 30_000): Promise<ScreenshotReceipt> {
  const dir = process.env[SCREENSHOTS_ENV];
  if (!dir) throw new Error(`${SCREENSHOTS_ENV} is not set: screenshots need test/vscode/run.ts`);
  const receiptFile = path.join(dir, `${request.name}.json`);
  fs.rmSync(receiptFile, { force: true });
  console.log(`${SCREENSHOT_MARKER}${JSON.stringify(request)}`);
  return waitFor(`the screenshot ${request.name}`, timeoutMs, () =>
    fs.existsSync(receiptFile) ? (JSON.parse(fs.readFileSync(receiptFile, 'utf8')) as ScreenshotReceipt) : undefined,
  );
}

/**
 * Asks the runner to type into the workbench as a user would (quick picks, input boxes), and waits
 * for its receipt. The steps run in the browser, outside the extension host; a step whose text never
 * shows ends the request, and the receipt says which.
 */
export async function userInput(request: InputRequest, timeoutMs = 120_000): Promise<InputReceipt> {
  const dir = process.env[SCREENSHOTS_ENV];
  if (!dir) throw new Error(`${SCREENSHOTS_ENV} is not set: typing needs test/vscode/run.ts`);
  const receiptFile = path.join(dir, `${request.name}.json`);
  fs.rmSync(receiptFile, { force: true });
  console.log(`${INPUT_MARKER}${JSON.stringify(request)}`);
  return waitFor(`the input ${request.name}`, timeoutMs, () =>
    fs.existsSync(receiptFile) ? (JSON.parse(fs.readFileSync(receiptFile, 'utf8')) as InputReceipt) : undefined,
  );
}

/** The processes below `pid` (Linux /proc): what a run started and did not stop shows up here. */
export function descendants(pid: number): Set<number> {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // `pid (comm) state ppid …`; comm may hold spaces and parentheses.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
  }
  const out = new Set<number>();
  const stack = [pid];
  while (stack.length) for (const c of children.get(stack.pop()!) ?? []) if (!out.has(c)) (out.add(c), stack.push(c));
  return out;
}

/** The engine server: the extension host's child running dist/server.js. */
export function engineServerPid(): number | undefined {
  return [...descendants(process.pid)].find((pid) => {
    try {
      return /dist[/\\]server\.js/.test(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
    } catch {
      return false;
    }
  });
}


/**
 * Says why in the runner's output (the extension host forwards console.log only), then skips: mocha
 * counts it as skipped. In strict mode (XRT_STRICT_SKIPS=1, as CI runs) it fails the test instead: no
 * editor test needs what this kind of machine cannot have (test/helpers/skip-policy.ts).
 */
export function skipBecause(ctx: Mocha.Context, reason: string): never {
  if (strictSkips()) throw new Error(strictRefusal(reason, undefined));
  console.log(`      skipped: ${reason}`);
  ctx.skip();
  throw new Error('unreachable'); // ctx.skip() throws; this satisfies the `never` type
}

/** A local chat-completions server (the OpenAI wire format) that answers each call with `reply(n)`, n from 1. */
export interface ChatServer {
  /** `http://127.0.0.1:<port>/v1`, for `xrepotest.baseUrl`. */
  url: string;
  /** What each call was sent: its messages joined. */
  received: string[];
  close(): Promise<void>;
}

export async function startChatServer(reply: (call: number, prompt: string) => string): Promise<ChatServer> {
  const http = await import('node:http');
  const received: string[] = [];
  const server = http.createServer((req, res) => {
    let data = '';
    req.on('data', (chunk: Buffer) => (data += chunk.toString()));
    req.on('end', () => {
      const body = JSON.parse(data || '{}') as { model?: string; messages?: Array<{ content: string }> };
      const prompt = (body.messages ?? []).map((m) => m.content).join('\n');
      received.push(prompt);
      res.writeHead(200, { 'content-type': 'application/json' });
      const content = reply(received.length, prompt);
      res.end(JSON.stringify({ id: 'r', object: 'chat.completion', created: 0, model: body.model, choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/v1`, received, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Points the extension at a chat server as an OpenAI-compatible model (user settings and a stored key); `undo` puts the settings back. */
export async function useChatServer(server: ChatServer, model: string): Promise<{ undo(): Promise<void> }> {
  const config = vscode.workspace.getConfiguration('xrepotest');
  if ((await vscode.commands.executeCommand('xrepotest.setApiKey', 'openai-compatible', 'sk-local-test-0123456789')) !== true) throw new Error('the key was not stored');
  await config.update('provider', 'openai-compatible', vscode.ConfigurationTarget.Global);
  await config.update('model', model, vscode.ConfigurationTarget.Global);
  await config.update('baseUrl', server.url, vscode.ConfigurationTarget.Global);
  return {
    async undo() {
      for (const key of ['provider', 'model', 'baseUrl']) await config.update(key, undefined, vscode.ConfigurationTarget.Global);
    },
  };
}

/** The code lenses of a document on one line (1-based), as the editor has them now. */
export async function lensesOn(uri: vscode.Uri, line: number): Promise<vscode.CodeLens[]> {
  return ((await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri)) ?? []).filter((l) => l.range.start.line === line - 1);
}

/** Runs a lens's command as a click on it does. */
export function clickLens<T>(lens: vscode.CodeLens): Thenable<T> {
  return vscode.commands.executeCommand<T>(lens.command!.command, ...(lens.command!.arguments ?? []));
}
