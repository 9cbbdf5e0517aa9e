import { rankDense } from '../dense';
import { retrievalMode } from './retrieval';

/** Windows ranked by the cosine of their embeddings to the focal code's (an OpenAI-compatible endpoint). */
export const denseMode = retrievalMode({
  id: 'dense',
  label: 'Dense (semantically similar repository code, by embeddings)',
  publishedField: 'retrieved_contexts_unixcoder',
  computeNeeds: ['embedder'],
  rank: (query, corpus, deps, k, signal) => rankDense(query, corpus, deps.embedder, k, signal),
});
