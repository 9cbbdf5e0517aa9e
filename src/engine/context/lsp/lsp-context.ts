import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Node } from 'web-tree-sitter';
import { CheckoutMismatchError, focalPathInRepo } from '../../execute/sandbox';
import { adapterFor } from '../../languages';
import type { LanguageId } from '../../parse/grammars';
import type { TaskRecord } from '../../tasks/record';
import type { Location, LspContext, Position, SymbolResolver } from '../types';
import { enclosingDefinition, isTestDefinition, SourceCache, type Definition } from './enclosing';
import { ServerMissingError } from './commands';
import { collect, lspSyntax } from './syntax';

export { publishedLspContext } from './published';

export interface LspContextLimits {
  /** For the whole task, server start included; what is found by then is kept. */
  deadlineMs: number;
  maxSnippetsPerKind: number;
  /** A longer definition is cut at a line boundary, with a `…` line after it. */
  maxSnippetChars: number;
  /** All three kinds together. */
  maxTotalChars: number;
  /** References kept per condition identifier (each mapped to the definition using it). */
  maxReferencesPerIdentifier: number;
  /** Definitions outside the checkout (the standard library, dependencies) are left out unless set. */
  includeExternal: boolean;
  /** Test code (test files, Rust #[cfg(test)] modules) is left out unless set: it would leak answers. */
  includeTests: boolean;
}

export const DEFAULT_LSP_LIMITS: LspContextLimits = {
  deadlineMs: 120_000,
  maxSnippetsPerKind: 8,
  maxSnippetChars: 3000,
  maxTotalChars: 12_000,
  maxReferencesPerIdentifier: 3,
  includeExternal: false,
  includeTests: false,
};

/** The context and how it was gathered. */
export interface LspContextReport extends LspContext {
  /** Server errors, snippets dropped for size, the deadline. */
  notes: string[];
  timedOut: boolean;
}

type Kind = keyof LspContext;

/** Definitions kept per kind: deduplicated by place and by text, the focal function and what holds it left out. */
class SnippetCollector {
  readonly context: LspContext = { argumentDefinitions: [], calleeDefinitions: [], conditionReferences: [] };
  readonly notes: string[] = [];
  private readonly places = new Set<string>();
  private readonly texts = new Set<string>();
  private total = 0;

  constructor(
    private readonly limits: LspContextLimits,
    private readonly focal: { file: string; start: number; end: number },
    private readonly repoDir: string,
  ) {}

  /** Whether a definition may be context at all (before deduplication and limits). */
  admissible(def: Definition | null): def is Definition {
    if (!def) return false;
    const rel = path.relative(this.repoDir, def.file);
    if (!this.limits.includeExternal && (rel.startsWith('..') || path.isAbsolute(rel))) return false;
    if (!this.limits.includeTests && isTestDefinition(def, def.language, rel)) return false;
    // The focal function is in the prompt already; its locals, and the class around it, say nothing new.
    return !(def.file === this.focal.file && def.start < this.focal.end && def.end > this.focal.start);
  }

  /** Adds the definition; true when it is new (whether or not size limits let its text in). */
  add(kind: Kind, def: Definition | null): boolean {
    if (!this.admissible(def)) return false;
    const rel = path.relative(this.repoDir, def.file);
    const place = `${def.file}:${def.start}:${def.end}`;
    const text = def.text.trim();
    if (this.places.has(place) || this.texts.has(text)) return false;
    this.places.add(place);
    this.texts.add(text);
    const list = this.context[kind];
    if (list.length >= this.limits.maxSnippetsPerKind) {
      this.notes.push(`${kind}: more than ${this.limits.maxSnippetsPerKind} snippets; ${rel}:${def.startRow + 1} left out`);
      return true;
    }
    const snippet = cut(text, this.limits.maxSnippetChars);
    if (this.total + snippet.length > this.limits.maxTotalChars) {
      this.notes.push(`${kind}: ${rel}:${def.startRow + 1} left out (over ${this.limits.maxTotalChars} characters in all)`);
      return true;
    }
    this.total += snippet.length;
    list.push(snippet);
    return true;
  }
}

function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const nl = text.lastIndexOf('\n', max);
  return `${text.slice(0, nl > 0 ? nl : max)}\n…`;
}

function positionOf(n: Node): Position {
  return { line: n.startPosition.row, character: n.startPosition.column };
}

/** First occurrence of each name: asking twice about `it` or `$this` gains nothing. */
function uniqueByText(nodes: Node[]): Node[] {
  const seen = new Set<string>();
  return nodes.filter((n) => !seen.has(n.text) && (seen.add(n.text), true));
}

/**
 * The paper's LSP context (Appendix B) for one task, from real servers behind `resolver`:
 * (i) argument definitions — the types of the parameters and receiver, and the types those depend on
 * (one level); (ii) callee definitions — what each call in the body resolves to, and the return type's
 * definition (the values a test compares against); (iii) condition references — definitions, type
 * definitions and a few using definitions of the identifiers in the function's conditions.
 * Every answer is widened to the whole tree-sitter definition around it, read from disk.
 */
export async function collectLspContext(
  task: TaskRecord,
  language: LanguageId,
  repoDir: string,
  resolver: SymbolResolver,
  limits: Partial<LspContextLimits> = {},
): Promise<LspContextReport> {
  const lim = { ...DEFAULT_LSP_LIMITS, ...limits };
  const deadline = Date.now() + lim.deadlineMs;
  const root = path.resolve(repoDir);
  const focalFile = path.join(root, focalPathInRepo(task));
  if (!fs.existsSync(focalFile)) throw new CheckoutMismatchError(`${task.file_path}: ${focalFile} does not exist in the checkout ${root}`);
  if (fs.readFileSync(focalFile, 'utf8') !== task.file_content) {
    throw new CheckoutMismatchError(`${task.file_path}: the checkout at ${root} differs from the task's file_content; LSP answers would point into other code`);
  }
  const cache = new SourceCache();
  let timedOut = false;
  const serverErrors: string[] = [];
  try {
    const parsed = await cache.get(focalFile);
    if (!parsed || parsed.language !== language) throw new Error(`${task.file_path}: not a ${language} file that parses in time`);
    const { start_line, end_line } = task.function_component;
    const fn = adapterFor(language)
      .listFunctions(parsed.tree, parsed.source, '')
      .find((f) => f.startLine === start_line && f.endLine === end_line);
    if (!fn) throw new Error(`${task.file_path}: no function spans lines ${start_line}-${end_line}`);
    const syntax = lspSyntax(language);
    const out = new SnippetCollector(lim, { file: focalFile, start: fn.node.startIndex, end: fn.node.endIndex }, root);

    /** One question, cut short at the deadline; a failing server costs its answer, not the context. */
    const ask = async (q: () => Promise<Location[]>): Promise<Location[]> => {
      const left = deadline - Date.now();
      if (left <= 0) {
        timedOut = true;
        return [];
      }
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<Location[]>((resolve) => {
        timer = setTimeout(() => {
          timedOut = true;
          resolve([]);
        }, left);
      });
      try {
        return await Promise.race([q(), late]);
      } catch (e) {
        // No server at all is the caller's to report (it names what to install), not a note.
        if (e instanceof ServerMissingError) throw e;
        serverErrors.push((e as Error).message.split('\n')[0]);
        return [];
      } finally {
        clearTimeout(timer);
      }
    };
    const definitionsAt = async (file: string, n: Node, how: Array<'definition' | 'typeDefinition'>): Promise<Array<Definition | null>> => {
      for (const method of how) {
        const locs = await ask(() => resolver[method](file, positionOf(n)));
        if (locs.length > 0) return Promise.all(locs.map((l) => enclosingDefinition(cache, l)));
      }
      return [];
    };
    // (i) parameter and receiver types, then the types they depend on.
    const argNames = uniqueByText(syntax.parameterTypeNames(fn.node));
    const typeHow: Array<'definition' | 'typeDefinition'> = adapterFor(language).lsp.typeDefinitionFirst ? ['typeDefinition', 'definition'] : ['definition', 'typeDefinition'];
    const argDefs = (await Promise.all(argNames.map((n) => definitionsAt(focalFile, n, typeHow)))).flat();
    const added = argDefs.filter((d): d is Definition => d !== null && out.add('argumentDefinitions', d));
    const deps = await Promise.all(
      added.map((d) => Promise.all(uniqueByText(syntax.typeNamesIn(d.node)).map((n) => definitionsAt(d.file, n, ['definition'])))),
    );
    for (const d of deps.flat(2)) out.add('argumentDefinitions', d);

    // (ii) the return type, then every call's callee.
    const returnDefs = await Promise.all(uniqueByText(syntax.returnTypeNames(fn.node)).map((n) => definitionsAt(focalFile, n, ['definition'])));
    for (const d of returnDefs.flat()) out.add('calleeDefinitions', d);
    const callees = uniqueByText(collect(fn.node, (n) => syntax.calleeName(n) !== null).map((c) => syntax.calleeName(c)!));
    const calleeDefs = await Promise.all(callees.map((n) => definitionsAt(focalFile, n, ['definition'])));
    for (const d of calleeDefs.flat()) out.add('calleeDefinitions', d);

    // (iii) identifiers in conditions: where they are declared, their types, and a few uses elsewhere.
    const conditions = collect(fn.node, (n) => syntax.conditionParts(n).length > 0).flatMap((n) => syntax.conditionParts(n));
    const idents = uniqueByText(conditions.flatMap((c) => collect(c, (n) => syntax.identifiers.has(n.type))));
    const perIdent = await Promise.all(
      idents.map(async (n) => {
        const [defs, types] = await Promise.all([definitionsAt(focalFile, n, ['definition']), definitionsAt(focalFile, n, ['typeDefinition'])]);
        // Uses of locals stay in the focal function, uses of the standard library are everywhere:
        // only what the repository declares elsewhere has uses worth showing.
        if (!defs.some((d) => out.admissible(d))) return { defs: [...defs, ...types], using: [] };
        const refs = await ask(() => resolver.references(focalFile, positionOf(n)));
        const using = await Promise.all(refs.map((l) => enclosingDefinition(cache, l)));
        return { defs: [...defs, ...types], using };
      }),
    );
    for (const { defs, using } of perIdent) {
      for (const d of defs) out.add('conditionReferences', d);
      let kept = 0;
      for (const d of using) if (kept < lim.maxReferencesPerIdentifier && out.add('conditionReferences', d)) kept++;
    }

    const notes = [...out.notes, ...[...new Set(serverErrors)].map((e) => `server: ${e}`)];
    if (timedOut) notes.push(`stopped at the ${lim.deadlineMs} ms deadline; later answers are missing`);
    return { ...out.context, notes, timedOut };
  } finally {
    await cache.dispose();
  }
}

/** The three kinds alone (see collectLspContext). */
export async function buildLspContext(
  task: TaskRecord,
  language: LanguageId,
  repoDir: string,
  resolver: SymbolResolver,
  limits: Partial<LspContextLimits> = {},
): Promise<LspContext> {
  const { argumentDefinitions, calleeDefinitions, conditionReferences } = await collectLspContext(task, language, repoDir, resolver, limits);
  return { argumentDefinitions, calleeDefinitions, conditionReferences };
}
