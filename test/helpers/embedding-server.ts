import type * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/*
 * Pieces of the fake OpenAI-compatible /v1/embeddings servers in test/integration/prompt.test.ts,
 * test/unit/context-modes.test.ts and test/unit/retrieval.test.ts. Nothing here listens at import time.
 */

/** A hashed bag of words (FNV-1a of each whitespace-separated token) in `dims` dimensions. */
export function hashedBagOfWords(text: string, dims: number): number[] {
  const v = new Array<number>(dims).fill(0);
  for (const token of text.split(/\s+/).filter(Boolean)) {
    let h = 0x811c9dc5;
    for (let i = 0; i < token.length; i++) h = Math.imul(h ^ token.charCodeAt(i), 0x01000193) >>> 0;
    v[h % dims] += 1;
  }
  return v;
}

/** Listens on 127.0.0.1 (any port): the base URL ends in /v1. */
export async function listenOnLoopback(server: http.Server): Promise<{ baseUrl: string; close: () => Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { baseUrl: `http://127.0.0.1:${port}/v1`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
