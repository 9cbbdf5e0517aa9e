import type { JSONSchemaType } from 'ajv';
import type { ToolCall, ToolServices } from './services';

/** The tools, by id: MCP names them in snake case (`score_test`), the editor `xrepotest_<id>`. */
export const TOOL_IDS = ['focalFunctions', 'scoreTest', 'generateTests', 'coverage', 'runBenchmark', 'mutants'] as const;
export type ToolId = (typeof TOOL_IDS)[number];

/** How a caller names a tool to the model (MCP: `score_test`; the editor: `xrepotest_scoreTest`). */
export type ToolNamer = (id: ToolId) => string;

/**
 * One tool an agent can call, whatever carries the call (MCP, VS Code's language-model tools): what
 * it is for in the model's words, its arguments as a JSON Schema (the same object MCP's tools/list
 * and package.json's `languageModelTools` show), what it may do to the machine, and the engine use
 * case that does it.
 */
export interface ToolDefinition<A, R> {
  id: ToolId;
  /** A short human title. */
  title: string;
  /** What the tool does and when to use it, for the model; other tools are named as the caller names them. */
  description(nameOf: ToolNamer): string;
  /** Held untyped (see `defineTool`): `JSONSchemaType<A>` is checked where it is written. */
  inputSchema: object;
  /** The JSON Schema of the structured result (MCP's outputSchema; output-schemas.ts). */
  outputSchema: object;
  /** It runs test code (in a disposable, isolated copy): an editor asks the user before it does. */
  runsCode: boolean;
  /** It asks the configured model (which may cost money). */
  callsModel: boolean;
  /** The use case, with arguments already checked against the schema. */
  run(services: ToolServices, args: A, call: ToolCall): Promise<R>;
  /** The result in words for the model; the structured value goes beside it. */
  text(result: R): string;
}

/** A definition whose schema the compiler checks against its arguments' type. */
export function defineTool<A, R>(d: Omit<ToolDefinition<A, R>, 'inputSchema'> & { inputSchema: JSONSchemaType<A> }): ToolDefinition<A, R> {
  return d;
}

/**
 * An optional property. JSONSchemaType asks optional properties for `nullable: true` (JSON has no
 * undefined); the schema returned here has none, so null is refused as a value: only the type says nullable.
 */
export function optional<S extends object>(schema: S): S & { nullable: true } {
  return schema as S & { nullable: true };
}
