import * as fs from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline';

export interface JsonlProblem {
  file: string;
  /** 1-based. */
  line: number;
  message: string;
}

export function formatProblem(p: JsonlProblem): string {
  return `${p.file}:${p.line}: ${p.message}`;
}

/**
 * Reads a JSONL file line by line (published files reach hundreds of MB with `file_content` in every
 * record). A line that is not JSON is reported with its file and line, and the rest still loads.
 */
export async function* readJsonl(file: string, problems: JsonlProblem[]): AsyncGenerator<{ line: number; value: unknown }> {
  const input = fs.createReadStream(file, { encoding: 'utf8' });
  const lines = readline.createInterface({ input, crlfDelay: Infinity });
  let n = 0;
  for await (const raw of lines) {
    n++;
    const text = n === 1 ? raw.replace(/^\uFEFF/, '') : raw;
    if (!text.trim()) continue;
    try {
      yield { line: n, value: JSON.parse(text) };
    } catch (e) {
      problems.push({ file, line: n, message: `not valid JSON (${(e as Error).message})` });
    }
  }
}

/** Writes JSONL through a temporary file and a rename, so a reader never sees half a file. */
export function writeJsonlAtomic(file: string, records: Iterable<unknown>): void {
  const dir = path.dirname(path.resolve(file));
  fs.mkdirSync(dir, { recursive: true });
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.tmp`);
  const fd = fs.openSync(tmp, 'w');
  try {
    for (const r of records) fs.writeSync(fd, JSON.stringify(r) + '\n');
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
}
