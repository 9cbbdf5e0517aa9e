import { LANGUAGE_IDS, type LanguageId } from '../languages/ids';

/** The published dataset on the Hugging Face hub (notes/xrepotest-release.md §0). */
export const DEFAULT_DATASET_REPO = 'solis-soict/xrepotest';

/** Which flavour of the release a file is: the base records, or one of its enrichments. */
export type DatasetKind = 'base' | 'lsp' | 'rag-bm25' | 'rag-unixcoder';
export const DATASET_KINDS: readonly DatasetKind[] = ['base', 'lsp', 'rag-bm25', 'rag-unixcoder'];

/** The release's path of one file inside the hub repository (names from the release's constants.py). */
export function releasePath(language: LanguageId, kind: DatasetKind): string {
  switch (kind) {
    case 'base':
      return `data/base/${language}_functions.jsonl`;
    case 'lsp':
      return `data/lsp/${language}_functions_enriched.jsonl`;
    case 'rag-bm25':
      return `data/rag/${language}_functions_ws50_ss10_k20_enriched_bm25.jsonl`;
    case 'rag-unixcoder':
      return `data/rag/${language}_functions_ws50_ss10_k20_enriched_unixcoder.jsonl`;
  }
}

/** Every file of the chosen languages and kinds, in a fixed order (kind, then language). */
export function releasePaths(languages: readonly LanguageId[] = LANGUAGE_IDS, kinds: readonly DatasetKind[] = DATASET_KINDS): string[] {
  return kinds.flatMap((kind) => languages.map((language) => releasePath(language, kind)));
}

export function parseKinds(value: string): DatasetKind[] {
  const kinds = value.split(',').map((s) => s.trim()).filter(Boolean);
  for (const k of kinds) if (!DATASET_KINDS.includes(k as DatasetKind)) throw new Error(`unknown dataset kind ${JSON.stringify(k)} (expected ${DATASET_KINDS.join(',')})`);
  return kinds as DatasetKind[];
}

export function parseLanguages(value: string): LanguageId[] {
  const langs = value.split(',').map((s) => s.trim()).filter(Boolean);
  for (const l of langs) if (!LANGUAGE_IDS.includes(l as LanguageId)) throw new Error(`unknown language ${JSON.stringify(l)} (expected ${LANGUAGE_IDS.join(',')})`);
  return langs as LanguageId[];
}
