import { rankWindows, type CodeWindow, type RankedWindow } from './windows';

export interface Bm25Params {
  k1: number;
  b: number;
  /** Negative IDFs are replaced by epsilon × the average IDF (rank_bm25's floor). */
  epsilon: number;
}

/** rank_bm25.BM25Okapi's defaults, which the release uses (notes §1). */
export const BM25_DEFAULTS: Bm25Params = { k1: 1.5, b: 0.75, epsilon: 0.25 };

/** Python's `str.split()`: runs of whitespace separate tokens, none empty. */
export function whitespaceTokens(text: string): string[] {
  return text.split(/\s+/).filter((t) => t !== '');
}

/**
 * BM25Okapi exactly as Python's rank_bm25 0.2.2 computes it, operation for operation, so scores agree
 * to the last bits: IDF = ln(N − n + 0.5) − ln(n + 0.5); words with a negative IDF get
 * epsilon × (mean IDF over the vocabulary, taken before the floor); a repeated query token counts
 * every time it appears; a token outside the vocabulary adds nothing.
 */
export class Bm25Okapi {
  readonly params: Bm25Params;
  readonly corpusSize: number;
  readonly avgdl: number;
  readonly averageIdf: number;
  /** In first-seen order, as rank_bm25's dict (the order the IDF sum is taken in). */
  readonly idf = new Map<string, number>();
  private readonly docFreqs: Array<Map<string, number>> = [];
  private readonly docLen: number[] = [];

  constructor(corpus: readonly (readonly string[])[], params: Partial<Bm25Params> = {}) {
    this.params = {
      k1: params.k1 ?? BM25_DEFAULTS.k1,
      b: params.b ?? BM25_DEFAULTS.b,
      epsilon: params.epsilon ?? BM25_DEFAULTS.epsilon,
    };
    if (corpus.length === 0) throw new Error('BM25 needs at least one document');
    const nd = new Map<string, number>();
    let numDoc = 0;
    for (const document of corpus) {
      this.docLen.push(document.length);
      numDoc += document.length;
      const frequencies = new Map<string, number>();
      for (const word of document) frequencies.set(word, (frequencies.get(word) ?? 0) + 1);
      this.docFreqs.push(frequencies);
      for (const word of frequencies.keys()) nd.set(word, (nd.get(word) ?? 0) + 1);
    }
    this.corpusSize = corpus.length;
    this.avgdl = numDoc / this.corpusSize;

    let idfSum = 0;
    const negative: string[] = [];
    for (const [word, freq] of nd) {
      const idf = Math.log(this.corpusSize - freq + 0.5) - Math.log(freq + 0.5);
      this.idf.set(word, idf);
      idfSum += idf;
      if (idf < 0) negative.push(word);
    }
    // An all-empty corpus has no vocabulary; Python would divide by zero, we just have no IDFs.
    this.averageIdf = this.idf.size ? idfSum / this.idf.size : 0;
    const eps = this.params.epsilon * this.averageIdf;
    for (const word of negative) this.idf.set(word, eps);
  }

  /** One score per document, in corpus order. */
  scores(query: readonly string[]): number[] {
    const { k1, b } = this.params;
    const score = new Array<number>(this.corpusSize).fill(0);
    for (const q of query) {
      const idf = this.idf.get(q) ?? 0;
      for (let d = 0; d < this.corpusSize; d++) {
        const f = this.docFreqs[d].get(q) ?? 0;
        // Same association as numpy's evaluation of the Python expression, for bit-identical sums.
        score[d] += idf * ((f * (k1 + 1)) / (f + k1 * (1 - b + (b * this.docLen[d]) / this.avgdl)));
      }
    }
    return score;
  }
}

export interface Bm25RankOptions extends Partial<Bm25Params> {
  /** How many windows to keep; the paper: 10. */
  k?: number;
  tokenize?: (text: string) => string[];
}

/** The k windows BM25 ranks highest for the query (the focal code), ties by file path then line. */
export function rankBm25(query: string, windows: readonly CodeWindow[], options: Bm25RankOptions = {}): RankedWindow[] {
  if (windows.length === 0) return [];
  const tokenize = options.tokenize ?? whitespaceTokens;
  const bm25 = new Bm25Okapi(
    windows.map((w) => tokenize(w.text)),
    options,
  );
  return rankWindows(windows, bm25.scores(tokenize(query)), options.k ?? 10);
}
