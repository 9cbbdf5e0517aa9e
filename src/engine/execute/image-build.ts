export type BuildProgress = (line: string) => void;

/** A build, pull or import that failed; `log` holds the end of what the engine printed. */
export class ImageBuildError extends Error {
  constructor(
    message: string,
    readonly log: string,
  ) {
    super(message);
    this.name = 'ImageBuildError';
  }

  /** The message with the last lines of the log, for people. */
  report(lines = 30): string {
    const tail = this.log.trimEnd().split('\n').slice(-lines).join('\n');
    return tail ? `${this.message}\n--- last lines of the build log ---\n${tail}` : this.message;
  }
}

interface ProgressEvent {
  stream?: string;
  status?: string;
  progress?: string;
  id?: string;
  error?: string;
  errorDetail?: { message?: string };
}

const LOG_KEEP = 256 * 1024;

/**
 * Follows a build/pull/import stream (JSON objects, one per line) to its end. The engine reports a
 * failed RUN step inside the stream, not as an HTTP error, so an `error` event must fail the build
 * here or it would be taken for success.
 */
export function runBuild(stream: NodeJS.ReadableStream, opts: { onProgress?: BuildProgress; signal?: AbortSignal } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    let log = '';
    let pending = '';
    let failure: string | undefined;
    const append = (text: string): void => {
      log = (log + text).slice(-LOG_KEEP);
    };
    const onEvent = (e: ProgressEvent): void => {
      if (e.error || e.errorDetail?.message) {
        failure = e.errorDetail?.message ?? e.error;
        append(`${failure}\n`);
        return;
      }
      const text = e.stream ?? (e.status ? `${e.status}${e.id ? ` ${e.id}` : ''}${e.progress ? ` ${e.progress}` : ''}\n` : '');
      if (!text) return;
      append(text);
      for (const line of text.split('\n')) if (line.trim()) opts.onProgress?.(line.trimEnd());
    };
    const onAbort = (): void => {
      (stream as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
      reject(new ImageBuildError('image build cancelled', log));
    };
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    stream.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) parseLine(line);
    });
    const parseLine = (line: string): void => {
      if (!line.trim()) return;
      try {
        onEvent(JSON.parse(line) as ProgressEvent);
      } catch {
        append(line + '\n'); // some engines print plain text (podman's import answers with the image id)
      }
    };
    stream.on('error', (err: Error) => {
      opts.signal?.removeEventListener('abort', onAbort);
      reject(new ImageBuildError(err.message, log));
    });
    stream.on('end', () => {
      opts.signal?.removeEventListener('abort', onAbort);
      parseLine(pending);
      if (failure) reject(new ImageBuildError(failure.trim(), log));
      else resolve(log);
    });
  });
}
