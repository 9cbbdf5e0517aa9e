import type { Node } from 'web-tree-sitter';

/** The operator families of METRICS.md item 6, in the order mutants are listed and capped. */
export type MutationOperator = 'arithmetic' | 'relational' | 'logical' | 'constant' | 'return-value' | 'statement-deletion';

export const MUTATION_OPERATORS: readonly MutationOperator[] = [
  'arithmetic',
  'relational',
  'logical',
  'constant',
  'return-value',
  'statement-deletion',
];

/** One candidate change to the focal file: `[startIndex, endIndex)` of `file_content` becomes `replacement`. */
export interface MutationEdit {
  operator: MutationOperator;
  /** 1-based line of `startIndex` in the file (what coverage is matched against). */
  line: number;
  startIndex: number;
  endIndex: number;
  original: string;
  replacement: string;
}

/** A language's mutation operators: `fn` is the focal function's definition node; every edit lies inside it. */
export type MutationEditsFor = (fn: Node) => MutationEdit[];
