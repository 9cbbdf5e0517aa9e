import type { PhaseCommand, PhaseResult } from './types';

/**
 * Keeps a command's output within a byte budget: the head and the tail, with a marker where the middle
 * was dropped. Both ends matter — compilers report the first error at the top, test runners print
 * their summary at the bottom — and a test that prints a gigabyte must not take the engine's memory.
 */
export class CappedOutput {
  private head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private dropped = 0;

  /** Told of every chunk, kept or dropped (a build's progress limit restarts on it). */
  onChunk?: (chunk: Buffer) => void;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    this.onChunk?.(chunk);
    const headLimit = Math.floor(this.limit / 2);
    if (this.headBytes < headLimit) {
      const take = Math.min(chunk.length, headLimit - this.headBytes);
      this.head.push(chunk.subarray(0, take));
      this.headBytes += take;
      chunk = chunk.subarray(take);
      if (!chunk.length) return;
    }
    this.tail.push(chunk);
    this.tailBytes += chunk.length;
    const tailLimit = this.limit - headLimit;
    while (this.tailBytes > tailLimit && this.tail.length) {
      const excess = this.tailBytes - tailLimit;
      const first = this.tail[0];
      if (first.length <= excess) {
        this.tail.shift();
        this.tailBytes -= first.length;
        this.dropped += first.length;
      } else {
        this.tail[0] = first.subarray(excess);
        this.tailBytes -= excess;
        this.dropped += excess;
      }
    }
  }

  get truncated(): boolean {
    return this.dropped > 0;
  }

  text(): string {
    const head = Buffer.concat(this.head).toString('utf8');
    const tail = Buffer.concat(this.tail).toString('utf8');
    if (!this.dropped) return head + tail;
    return `${head}\n[xrepotest: ${this.dropped} bytes of output dropped here; the limit is ${this.limit} bytes]\n${tail}`;
  }
}

/** A session's result as its caller gets it: the command's `readOutput` applied (execute/types.ts). */
export function readOutput(cmd: PhaseCommand, raw: PhaseResult, maxBytes: number): PhaseResult {
  return cmd.readOutput ? cmd.readOutput(raw, maxBytes) : raw;
}
