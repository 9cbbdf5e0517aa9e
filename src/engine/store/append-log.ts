import * as fs from 'node:fs';

/**
 * An append-only JSONL file that survives being killed at any moment (SIGKILL included): each record
 * is one write of one line followed by fsync, and on open a torn last line (a write cut short) is cut
 * off, so a resumed run neither loses a finished record nor reads half of one.
 */
export class AppendLog<T> {
  private fd: number | null = null;

  private constructor(
    readonly file: string,
    readonly records: T[],
  ) {}

  /** Reads what is there (repairing a torn tail) and opens for appending. */
  static open<T>(file: string): AppendLog<T> {
    const records: T[] = [];
    if (fs.existsSync(file)) {
      const text = fs.readFileSync(file, 'utf8');
      const end = text.lastIndexOf('\n') + 1;
      if (end < text.length) fs.truncateSync(file, Buffer.byteLength(text.slice(0, end)));
      for (const line of text.slice(0, end).split('\n')) {
        if (!line.trim()) continue;
        try {
          records.push(JSON.parse(line) as T);
        } catch {
          // A line cannot be half-written (see append), so this is a file edited by hand: skip it.
        }
      }
    }
    const log = new AppendLog<T>(file, records);
    log.fd = fs.openSync(file, 'a');
    return log;
  }

  append(record: T): void {
    if (this.fd === null) throw new Error(`${this.file} is closed`);
    fs.writeSync(this.fd, JSON.stringify(record) + '\n');
    fs.fsyncSync(this.fd);
    this.records.push(record);
  }

  close(): void {
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
  }
}
