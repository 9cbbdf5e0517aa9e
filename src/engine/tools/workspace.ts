import * as fs from 'node:fs';
import * as path from 'node:path';
import { ToolArgumentError } from './errors';

/** `abs` is `root` or below it, by the names alone. */
function isBelow(root: string, abs: string): boolean {
  const rel = path.relative(root, abs);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/** A path an agent named, found inside the workspace: its real location and its path relative to the root. */
export interface WorkspacePath {
  /** Absolute, links resolved. */
  abs: string;
  /** '/'-separated, relative to the workspace root ('' for the root itself). */
  relPath: string;
}

/**
 * The one folder an agent's tools may read, copy into a sandbox or benchmark: the workspace the user
 * started the tools on (`xrepotest mcp --workspace DIR`, the editor's folder). Every path an agent
 * names is resolved here, relative to the root or absolute, and refused when it leads outside —
 * lexically (`../x`, `/etc/x`) or through a symbolic link anywhere on the way.
 */
export class Workspace {
  private constructor(
    /** Absolute, links resolved: what every path is compared with once resolved. */
    readonly root: string,
    /** As the user named it (absolute): an agent may name paths through it when the root is a link. */
    private readonly namedRoot: string,
  ) {}

  /** The workspace at `dir`, its own links resolved (so a root that is a link is compared by where it leads). */
  static open(dir: string): Workspace {
    let root: string;
    try {
      root = fs.realpathSync(path.resolve(dir));
    } catch {
      throw new Error(`the workspace ${dir} does not exist`);
    }
    if (!fs.statSync(root).isDirectory()) throw new Error(`the workspace ${dir} is not a folder`);
    return new Workspace(root, path.resolve(dir));
  }

  /** True when `abs` (already resolved) is the root or below it. */
  contains(abs: string): boolean {
    return isBelow(this.root, abs);
  }

  /**
   * An existing file or folder the agent named in argument `field`, inside the workspace, links
   * followed; a ToolArgumentError saying what to pass otherwise. Where a link leads is not said: the
   * link is the workspace's, its target may be anything on the machine.
   */
  resolve(field: string, given: string, kind: 'file' | 'folder'): WorkspacePath {
    const how = `pass a ${kind === 'file' ? 'file' : 'folder'} inside the workspace ${this.root}, relative to it or absolute`;
    if (!given.trim() || given.includes('\0')) throw new ToolArgumentError(`${field}: ${JSON.stringify(given)} is not a path; ${how}`);
    const lexical = path.resolve(this.root, given);
    if (!this.contains(lexical) && !isBelow(this.namedRoot, lexical)) throw new ToolArgumentError(`${field}: ${given} is outside the workspace; ${how}`);
    let real: string;
    try {
      real = fs.realpathSync(lexical);
    } catch {
      throw new ToolArgumentError(`${field}: ${given} does not exist in the workspace; ${how}`);
    }
    if (!this.contains(real)) throw new ToolArgumentError(`${field}: ${given} leads outside the workspace through a symbolic link; ${how} (not a link out of it)`);
    const stat = fs.statSync(real);
    if (kind === 'file' ? !stat.isFile() : !stat.isDirectory()) throw new ToolArgumentError(`${field}: ${given} is not a ${kind}; ${how}`);
    return { abs: real, relPath: path.relative(this.root, real).split(path.sep).join('/') };
  }
}
