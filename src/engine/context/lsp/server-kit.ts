import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { LanguageId } from '../../parse/grammars';
import { resourceRoot } from '../../util/resources';

/**
 * What a language needs to name its language server (languages/<id>/lsp-server.ts): the spec, the
 * error that says what to install, and finding programs. Imports no language.
 */

/** How to start one language's server, and what it needs at initialize. */
export interface ServerSpec {
  language: LanguageId;
  /** A short name for messages ("gopls", "rust-analyzer"…). */
  name: string;
  command: string;
  args: string[];
  env?: Record<string, string>;
  /** The `languageId` of opened documents. */
  languageId: string;
  /** Given a fresh folder the server may write into (removed after it exits). */
  initializationOptions?: (scratchDir: string) => unknown;
  /** Answers to `workspace/configuration`, by section. */
  settings?: Record<string, unknown>;
}

/** No usable server for a language: says what to install, with the exact command. */
export class ServerMissingError extends Error {
  constructor(
    readonly language: LanguageId,
    readonly server: string,
    readonly install: string,
    why: string,
  ) {
    super(`${language} LSP context needs ${server}: ${why}. Install it with: ${install}`);
    this.name = 'ServerMissingError';
  }
}

/** The project root (the folder with grammars/, package.json, .tools/). */
export function projectRoot(): string {
  return resourceRoot();
}

/** Where scripts/setup.sh installs gopls; git-ignored. */
export function projectToolsBin(): string {
  return path.join(projectRoot(), '.tools', 'bin');
}

export function onPath(name: string): string[] {
  return (process.env.PATH ?? '')
    .split(path.delimiter)
    .filter((d) => d !== '')
    .map((d) => path.join(d, name))
    .filter((p) => isExecutable(p));
}

export function isExecutable(p: string): boolean {
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

export function runTool(command: string, args: string[]): { ok: boolean; out: string } {
  const r = spawnSync(command, args, { encoding: 'utf8', timeout: 30_000, stdio: ['ignore', 'pipe', 'pipe'] });
  return { ok: r.status === 0, out: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}
