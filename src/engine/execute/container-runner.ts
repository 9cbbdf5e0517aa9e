import * as fs from 'node:fs';
import * as path from 'node:path';
import { Writable } from 'node:stream';
import type Dockerode from 'dockerode';
import type { CappedOutput } from './output';

/**
 * A runner inside a reused container: one root process, started by one exec when the container is
 * prepared, that runs each of the engine's commands there on request. An exec costs about 85 ms on
 * Podman (runc exec) and a scored PHP test about 70 ms, so a slot of one or two execs was dominated by
 * them; through the runner a command costs about 8 ms.
 *
 * What a command runs as is what an exec gave it: the container keeps CAP_SETUID, CAP_SETGID and
 * CAP_SETPCAP for the runner alone, and every command starts through `setpriv` with an empty bounding
 * set and no inheritable capabilities, as root or as the test user (65534, no supplementary groups):
 * no capability at all, as under an exec of a container with every capability dropped. The runner
 * itself cannot be traced by them (it holds capabilities they lack) and the test user cannot signal it.
 *
 * Its requests cannot be forged: the engine writes each command as a shell script into a folder only
 * root can enter (bind-mounted from the host at RUNNER_MOUNT) and sends its number on the runner's
 * stdin, which no command inherits. A command's stdout and stderr go through a pipe to `base64`, whose
 * lines are the only other thing the runner prints; the runner's own reply ("xrt-done N STATUS") holds
 * a space, which base64 never prints, and comes only after the encoder has ended. So nothing a test
 * prints can read as a reply, and its output is drained and capped on the host as an exec's is.
 */

/** Where the runner's folder is bound in the container. */
export const RUNNER_MOUNT = '/xrt-runner';

/** The capabilities a container with a runner keeps, for the runner alone. */
export const RUNNER_CAPS = ['SETUID', 'SETGID', 'SETPCAP'];

/** How every command starts: no capability left, whoever it runs as. */
const DROP_ALL = ['setpriv', '--bounding-set=-all', '--inh-caps=-all'];
const AS_TEST_USER = ['--reuid=65534', '--regid=65534', '--clear-groups'];

/**
 * The runner. It first checks it can do what it promises (its folder, setpriv, mkfifo, base64) and
 * says "xrt-ready" or "xrt-unable WHY"; then it reads command numbers, one per line. `XRT_SPARE` holds
 * its own pid and the encoder's: the reaping after a command (and the check after a slot) spares them.
 * `XRT_TEST_HOME`: the test user's home from the image's passwd, what an exec as that user sets HOME to.
 */
const RUNNER_LOOP = [
  'A=$$; d=/xrt-runner',
  '[ -w "$d" ] || { echo "xrt-unable its folder is not writable in the container"; exit 0; }',
  'for c in setpriv mkfifo base64; do command -v $c >/dev/null 2>&1 || { echo "xrt-unable the image has no $c"; exit 0; }; done',
  `${[...DROP_ALL, ...AS_TEST_USER].join(' ')} -- true 2>/dev/null || { echo "xrt-unable setpriv cannot drop to the test user"; exit 0; }`,
  'h=/; while IFS=: read -r u x i g c hd s; do [ "$i" = 65534 ] && h=$hd; done < /etc/passwd',
  'echo xrt-ready',
  'while IFS= read -r n; do',
  '  case $n in ""|*[!0-9]*) echo "xrt-bad request" >&2; continue;; esac',
  '  f=$d/$n; rm -f "$f.pipe"',
  '  mkfifo -m 600 "$f.pipe" || { echo "xrt-done $n 125"; continue; }',
  '  base64 < "$f.pipe" & e=$!',
  '  XRT_SPARE="$A $e" XRT_TEST_HOME="$h" sh "$f.sh" > "$f.pipe" 2>&1 < /dev/null',
  '  s=$?; wait "$e"; rm -f "$f.pipe" "$f.sh"',
  '  echo "xrt-done $n $s"',
  'done',
].join('\n');

/** A word for sh, quoted: nothing in it is expanded. */
function shellWord(s: string): string {
  if (s.includes('\0')) throw new Error('a command argument holds a NUL byte');
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

export interface RunnerCommand {
  /** The command (the engine's `sh -c SCRIPT …` wrappers). */
  argv: string[];
  /** Added to the container's environment, as an exec's Env. */
  env: string[];
  cwd?: string;
  /** Root, or the test user. */
  user: 'root' | 'test';
}

/** A command's end: its exit status, or null when the runner (or the container) went away first. */
export interface RunnerResult {
  code: number | null;
}

/** The script a command runs as: into its folder, then its environment and user, and exec. */
export function commandScript(cmd: RunnerCommand): string {
  for (const e of cmd.env) if (!/^[A-Za-z_][A-Za-z0-9_]*=/.test(e)) throw new Error(`not an environment entry: ${JSON.stringify(e.slice(0, 40))}`);
  const home = cmd.user === 'test' && !cmd.env.some((e) => e.startsWith('HOME=')) ? ['"HOME=$XRT_TEST_HOME"'] : [];
  const lines = [];
  if (cmd.cwd) lines.push(`cd -- ${shellWord(cmd.cwd)} || exit 126`);
  // XRT_TEST_HOME is the runner's word to this script alone; XRT_SPARE goes on to the reaper, which unsets it.
  lines.push(['exec env -u XRT_TEST_HOME --', ...home, ...cmd.env.map(shellWord), ...DROP_ALL, ...(cmd.user === 'test' ? AS_TEST_USER : []), '--', ...cmd.argv.map(shellWord)].join(' '));
  return lines.join('\n') + '\n';
}

/** How long the runner may take to say it is ready. */
const START_MS = 60_000;

/** The longest line the runner prints (base64 wraps at 76): anything longer means it is not our runner talking. */
const MAX_LINE = 4096;

export class ContainerRunner {
  private next = 0;
  private buffered = '';
  private current: { n: string; output: CappedOutput; done: (r: RunnerResult) => void } | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  /** Why it stopped serving (the stream ended, it printed what it never prints), once it has. */
  stopped: string | undefined;
  private ready: ((why: string | null) => void) | null = null;

  private constructor(
    private readonly stream: NodeJS.ReadWriteStream,
    /** The host folder bound at RUNNER_MOUNT: root's, 0700. */
    private readonly dir: string,
  ) {}

  /**
   * Starts the runner in `container` (its folder `dir` bound at RUNNER_MOUNT, the runner's capabilities
   * kept). Null, with the reason, when it cannot serve there: the caller then uses execs.
   */
  static async start(docker: Dockerode, container: Dockerode.Container, dir: string): Promise<ContainerRunner | string> {
    const exec = await container.exec({ Cmd: ['sh', '-c', RUNNER_LOOP, 'xrt-runner'], User: '0:0', AttachStdin: true, AttachStdout: true, AttachStderr: true, Tty: false });
    const stream = (await exec.start({ hijack: true, stdin: true, Detach: false, Tty: false })) as unknown as NodeJS.ReadWriteStream;
    const runner = new ContainerRunner(stream, dir);
    const ready = new Promise<string | null>((resolve) => (runner.ready = resolve));
    const stdout = new Writable({
      write: (chunk: Buffer, _enc, done): void => {
        runner.onStdout(chunk.toString('latin1'));
        done();
      },
    });
    // Its stderr carries only the shell's own complaints: drained, not read.
    const stderr = new Writable({ write: (_c, _e, done): void => done() });
    docker.modem.demuxStream(stream, stdout, stderr);
    const ended = (): void => runner.stop('the runner in the container stopped');
    stream.on('end', ended);
    stream.on('close', ended);
    stream.on('error', ended);
    // A container that never answers does not hold the slot: it is then served by execs (which have their own deadline).
    const deadline = setTimeout(() => runner.stop(`the runner did not start within ${START_MS} ms`), START_MS);
    const why = await ready.finally(() => clearTimeout(deadline));
    if (why !== null) {
      runner.close();
      return why;
    }
    return runner;
  }

  private onStdout(text: string): void {
    this.buffered += text;
    for (let i = this.buffered.indexOf('\n'); i >= 0; i = this.buffered.indexOf('\n')) {
      const line = this.buffered.slice(0, i);
      this.buffered = this.buffered.slice(i + 1);
      this.onLine(line);
    }
    if (this.buffered.length > MAX_LINE) this.stop('the runner printed a line longer than it ever prints');
  }

  private onLine(line: string): void {
    if (this.ready) {
      const r = this.ready;
      this.ready = null;
      if (line === 'xrt-ready') r(null);
      else r(line.startsWith('xrt-unable ') ? line.slice('xrt-unable '.length) : `the runner did not start: ${line.slice(0, 200)}`);
      return;
    }
    const current = this.current;
    const m = /^xrt-done (\d+) (\d+)$/.exec(line);
    if (m) {
      if (!current || m[1] !== current.n) return this.stop('the runner answered a request it was not given');
      this.current = null;
      current.done({ code: Number(m[2]) });
      return;
    }
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(line) || line.length % 4) return this.stop('the runner printed a line that is not its output');
    current?.output.push(Buffer.from(line, 'base64'));
  }

  /** Stops serving: the pending command ends with no status (the caller treats the container as dead). */
  private stop(why: string): void {
    this.stopped ??= why;
    this.ready?.(why);
    this.ready = null;
    const current = this.current;
    this.current = null;
    current?.done({ code: null });
    this.close();
  }

  /** Ends the stream (the runner's stdin closes and it exits). */
  close(): void {
    (this.stream as NodeJS.ReadWriteStream & { destroy?: () => void }).destroy?.();
  }

  /** Runs one command (after those before it), its output into `output`. */
  run(cmd: RunnerCommand, output: CappedOutput): Promise<RunnerResult> {
    const result = this.queue.then(() => this.runNow(cmd, output));
    this.queue = result.catch(() => undefined);
    return result;
  }

  private runNow(cmd: RunnerCommand, output: CappedOutput): Promise<RunnerResult> {
    if (this.stopped) return Promise.resolve({ code: null });
    const n = String(++this.next);
    // The folder is root's and 0700: only the engine (as root) and the runner can write or read it.
    fs.writeFileSync(path.join(this.dir, `${n}.sh`), commandScript(cmd), { mode: 0o600, flag: 'wx' });
    return new Promise<RunnerResult>((resolve) => {
      this.current = { n, output, done: resolve };
      this.stream.write(`${n}\n`);
    });
  }
}
