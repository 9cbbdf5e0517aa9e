import { SingleBar, Presets } from 'cli-progress';

export interface Progress {
  update(done: number, total: number, detail: string): void;
  stop(): void;
}

/**
 * A bar on a terminal; elsewhere (CI logs, pipes) a plain line every few seconds, so long runs still
 * show they are alive without flooding the log.
 */
export function createProgress(label: string, enabled: boolean): Progress {
  if (!enabled) return { update() {}, stop() {} };
  if (process.stderr.isTTY) {
    const bar = new SingleBar(
      { format: `${label} [{bar}] {value}/{total} files | {detail}`, stream: process.stderr, hideCursor: true, clearOnComplete: true },
      Presets.shades_classic,
    );
    let started = false;
    return {
      update(done, total, detail) {
        if (!started) {
          bar.start(total, done, { detail });
          started = true;
        } else bar.update(done, { detail: detail.length > 50 ? '…' + detail.slice(-49) : detail });
      },
      stop() {
        if (started) bar.stop();
      },
    };
  }
  let last = Date.now();
  return {
    update(done, total, detail) {
      if (Date.now() - last < 5000) return;
      last = Date.now();
      process.stderr.write(`${label}: ${done}/${total} files (${detail})\n`);
    },
    stop() {},
  };
}
