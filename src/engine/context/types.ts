import type { LanguageId } from '../parse/grammars';
import type { TaskRecord } from '../tasks/record';

/** Zero-based, as in LSP. */
export interface Position {
  line: number;
  character: number;
}

export interface Location {
  /** Absolute file path. */
  file: string;
  range: { start: Position; end: Position };
}

/**
 * Answers the LSP questions context needs. Headless language servers implement it in the CLI; the
 * extension answers the same questions through the editor's own servers (vscode.execute*Provider).
 */
export interface SymbolResolver {
  definition(file: string, position: Position): Promise<Location[]>;
  typeDefinition(file: string, position: Position): Promise<Location[]>;
  references(file: string, position: Position): Promise<Location[]>;
  hover(file: string, position: Position): Promise<string | null>;
  close(): Promise<void>;
}

/** The paper's three kinds of LSP context (Appendix B), each a list of source snippets, deduplicated. */
export interface LspContext {
  argumentDefinitions: string[];
  calleeDefinitions: string[];
  conditionReferences: string[];
}

/** A retrieved window of repository code (BM25 or dense). */
export interface RetrievedWindow {
  /** Repository-relative path. */
  file: string;
  startLine: number;
  endLine: number;
  text: string;
  score: number;
}

export interface ContextRequest {
  task: TaskRecord;
  language: LanguageId;
  /** The checkout; needed by lsp, bm25 and dense (not by standard and file). */
  repoDir?: string;
}
