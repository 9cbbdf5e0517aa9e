import { createHash } from 'node:crypto';
import * as fs from 'node:fs';

/** SHA-256 of a file, streamed: published files reach hundreds of MB. */
export async function sha256File(file: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of fs.createReadStream(file)) h.update(chunk as Buffer);
  return h.digest('hex');
}

/**
 * Git's blob id of a file's bytes. The hub's ETag of a small (non-LFS) file is this id, and `pin`
 * compares records' `file_content` with upstream trees by it without reading any blob.
 */
export function gitBlobSha1(content: Buffer | string): string {
  const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

export async function gitBlobSha1File(file: string): Promise<string> {
  const h = createHash('sha1').update(`blob ${fs.statSync(file).size}\0`);
  for await (const chunk of fs.createReadStream(file)) h.update(chunk as Buffer);
  return h.digest('hex');
}
