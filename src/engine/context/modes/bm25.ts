import { rankBm25 } from '../bm25';
import { retrievalMode } from './retrieval';

/** Windows ranked by BM25 (rank_bm25's Okapi, bit for bit). */
export const bm25Mode = retrievalMode({
  id: 'bm25',
  label: 'BM25 (lexically similar repository code)',
  publishedField: 'retrieved_contexts_bm25',
  computeNeeds: [],
  rank: async (query, corpus, deps, k) => rankBm25(query, corpus, { ...deps.bm25, k }),
});
