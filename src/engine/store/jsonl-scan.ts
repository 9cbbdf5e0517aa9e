import * as fs from 'node:fs';

/** Where a line sits in its file, in bytes (without its newline): enough to read it again alone. */
export interface LineAt {
  offset: number;
  length: number;
}

/**
 * Streams a JSONL file line by line with each line's byte position, so a caller can keep a few
 * fields per record and read one whole record back later (results.jsonl of a big run is hundreds of
 * MB: it is never read into memory at once). A last line without its newline is passed on too: a
 * file written by hand may lack it, and a torn write of an append log fails to parse anyway.
 */
export async function scanJsonl(file: string, onLine: (text: string, at: LineAt) => void | Promise<void>, signal?: AbortSignal): Promise<void> {
  const stream = fs.createReadStream(file, { highWaterMark: 1 << 20 });
  let carry: Buffer[] = [];
  let offset = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      signal?.throwIfAborted();
      let start = 0;
      for (let nl = chunk.indexOf(10, start); nl >= 0; nl = chunk.indexOf(10, start)) {
        const line = carry.length ? Buffer.concat([...carry, chunk.subarray(start, nl)]) : chunk.subarray(start, nl);
        carry = [];
        await onLine(line.toString('utf8'), { offset, length: line.length });
        offset += line.length + 1;
        start = nl + 1;
      }
      if (start < chunk.length) carry.push(Buffer.from(chunk.subarray(start)));
    }
    if (carry.length) {
      const line = Buffer.concat(carry);
      await onLine(line.toString('utf8'), { offset, length: line.length });
    }
  } finally {
    stream.destroy();
  }
}

/** One line read back from where `scanJsonl` saw it. */
export function readLineAt(file: string, at: LineAt): string {
  const fd = fs.openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(at.length);
    let read = 0;
    while (read < at.length) {
      const n = fs.readSync(fd, buffer, read, at.length - read, at.offset + read);
      if (n === 0) throw new Error(`${file} is shorter than when it was read (it changed since): reopen it`);
      read += n;
    }
    return buffer.toString('utf8');
  } finally {
    fs.closeSync(fd);
  }
}
