import type { LineHits } from '../types';
import { isSameFile, recordMax } from './paths';

/**
 * An lcov tracefile -> hits per line for `absFile` (the `SF:` record naming exactly that path).
 * llvm-cov can emit a file more than once (one record per object) and a line twice; the larger count
 * wins, as the same line's counter is then seen from more than one place.
 */
export function parseLcov(text: string, absFile: string): LineHits {
  const hits: LineHits = new Map();
  let inFile = false;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('SF:')) inFile = isSameFile(line.slice(3), absFile);
    else if (line === 'end_of_record') inFile = false;
    else if (inFile && line.startsWith('DA:')) {
      const [ln, count] = line.slice(3).split(',');
      recordMax(hits, Number(ln), Number(count));
    }
  }
  return hits;
}
