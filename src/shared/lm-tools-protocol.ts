/**
 * The editor's language-model tools (issue 18, part 2): VS Code's `vscode.lm` tools named
 * `xrepotest_<id>`, each one of the engine's agent tools (src/engine/tools). The extension forwards
 * an invocation to the engine server as CALL_TOOL; the server runs the engine's `callTool` with the
 * user's settings and keys. Plain types only: no `vscode` and no engine code here, so what the
 * extension needs to know of each tool (whether it runs code or asks a model, for the confirmation)
 * is declared here, and a unit test checks it against the engine's registry and package.json.
 */
import type { JSONSchemaType } from 'ajv';
import { withSettingsProperties, type WithSettings } from './protocol';
import { ClientRequest, literal } from './wire';

/** The engine's tool ids (engine/tools/definition.ts TOOL_IDS), in the same order. */
export const EDITOR_TOOL_IDS = ['focalFunctions', 'scoreTest', 'generateTests', 'coverage', 'runBenchmark', 'mutants'] as const;
export type EditorToolId = (typeof EDITOR_TOOL_IDS)[number];

/** What the extension needs to know of a tool before it calls the server: what to ask the user. */
export interface EditorToolInfo {
  id: EditorToolId;
  /** It builds and runs the workspace's code (in a disposable copy): confirmed first, refused in an untrusted workspace. */
  runsCode: boolean;
  /** It asks the configured model (which may cost money): confirmed first. */
  callsModel: boolean;
}

export const EDITOR_TOOLS: readonly EditorToolInfo[] = [
  { id: 'focalFunctions', runsCode: false, callsModel: false },
  { id: 'scoreTest', runsCode: true, callsModel: false },
  { id: 'generateTests', runsCode: true, callsModel: true },
  { id: 'coverage', runsCode: false, callsModel: false },
  { id: 'runBenchmark', runsCode: true, callsModel: true },
  { id: 'mutants', runsCode: true, callsModel: false },
];

/** The name VS Code and the model know a tool by: `xrepotest_scoreTest`. */
export function editorToolName(id: string): string {
  return `xrepotest_${id}`;
}

/** Client -> server: run one tool with the model's input (checked by the server against the tool's schema). */
export interface CallToolParams extends WithSettings {
  tool: EditorToolId;
  /** The model's arguments, as VS Code gives them (an object; the tool's own schema checks it). */
  input: Record<string, unknown>;
}

/**
 * What the call came to, as the engine's `callTool` says (redacted): `ok` with the result in words,
 * or why not (`arguments`: call again with other arguments; `refused`: this machine or configuration
 * cannot; `cancelled`; `failed`).
 */
export interface CallToolResult {
  ok: boolean;
  kind: 'ok' | 'arguments' | 'refused' | 'cancelled' | 'failed';
  text: string;
}

export const CALL_TOOL = new ClientRequest<CallToolParams, CallToolResult>('xrepotest/callTool', {
  type: 'object',
  required: ['tool', 'input', 'settings'],
  properties: {
    tool: literal(EDITOR_TOOL_IDS),
    // Any object: the tool's own schema (the engine's) checks its fields, and says what it expects.
    input: { type: 'object', required: [] } as unknown as JSONSchemaType<Record<string, unknown>>,
    ...withSettingsProperties,
  },
});
