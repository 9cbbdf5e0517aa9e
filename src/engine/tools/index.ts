/**
 * The tools an agent can call (issue 18), one registry for every way they are offered: the MCP server
 * (src/mcp) and the editor's language-model tools name them in their own style and carry their calls;
 * the checks, the use cases and the words are here. `callTool` is the one way in: arguments checked
 * against the tool's schema, errors sorted into what the agent should do, and no secret in anything
 * that goes back.
 */
import { redact, registerSecret } from '../util/redact';
import { checkAgainstSchema, SchemaMismatchError } from '../util/schema-check';
import { COVERAGE } from './coverage';
import type { ToolDefinition, ToolId } from './definition';
import { ToolArgumentError, ToolRefusal } from './errors';
import { FOCAL_FUNCTIONS } from './focal-functions';
import { GENERATE_TESTS } from './generate-tests';
import { MUTANTS } from './mutants';
import { RUN_BENCHMARK } from './run-benchmark';
import { SCORE_TEST } from './score-test';
import type { ToolCall, ToolServices } from './services';
import { DEFAULT_SECRET_SCAN, workspaceSecrets } from './workspace-secrets';

export type { ToolDefinition, ToolId, ToolNamer } from './definition';
export { TOOL_IDS } from './definition';
export type { ToolCall, ToolProgress, ToolServices } from './services';

// The registry holds tools of different argument and result types; each is checked where it is defined.
export type AnyTool = ToolDefinition<any, any>;

export const TOOLS: readonly AnyTool[] = [FOCAL_FUNCTIONS, SCORE_TEST, GENERATE_TESTS, COVERAGE, RUN_BENCHMARK, MUTANTS];

export function toolById(id: ToolId): AnyTool {
  const tool = TOOLS.find((t) => t.id === id);
  if (!tool) throw new Error(`no tool ${id}`);
  return tool;
}

/**
 * What a call came to. `arguments`: call again with other arguments; `refused`: this machine or
 * configuration cannot do it (the text says what the user changes); `cancelled`; `failed`: something
 * broke (the text says what).
 */
export type ToolOutcome = { ok: true; value: unknown; text: string } | { ok: false; kind: 'arguments' | 'refused' | 'cancelled' | 'failed'; text: string };

/** `file (string, required): The source file…; line (integer): …` from a tool's schema. */
export function argumentsHelp(tool: AnyTool): string {
  const schema = tool.inputSchema as { properties?: Record<string, { type?: string; description?: string }>; required?: string[] };
  const required = new Set(schema.required ?? []);
  const props = Object.entries(schema.properties ?? {});
  if (!props.length) return 'It takes no arguments.';
  const one = ([name, p]: [string, { type?: string; description?: string }]): string =>
    `${name} (${p.type ?? 'any'}${required.has(name) ? ', required' : ''})${p.description ? `: ${p.description.replace(/\.$/, '')}` : ''}`;
  return `Its arguments: ${props.map(one).join('; ')}.`;
}

/** Every string in a value redacted of known secrets (the structured result goes to the agent as it is). */
function redactDeep(value: unknown): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map(redactDeep);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactDeep(v)]));
  return value;
}

/**
 * The values of the workspace's secret files, registered for redaction as the call starts: the
 * sandbox copy holds those files, so a test can print them, and a result kept earlier may hold a
 * value added since. Registered for the whole process, so the records a run keeps are redacted too.
 */
function registerWorkspaceSecrets(services: ToolServices): void {
  const found = workspaceSecrets(services.workspace.root);
  for (const value of found.values) registerSecret(value);
  if (found.incomplete) services.log(`the workspace has too many entries to look through for secret files on every call; files past the first ${DEFAULT_SECRET_SCAN.maxEntries} entries are not redacted (${found.files.length} secret files found before)`);
}

/**
 * Runs one tool for an agent. The arguments are checked first (nothing runs on a malformed call);
 * what goes back — the value, its words, any error — is redacted of known secrets (configured keys,
 * the environment's secret-looking values, the values of the workspace's secret files, each in its
 * simple encodings too, and anything shaped like a token), since a test's output can carry what the
 * machine holds, and a provider's error can echo a request.
 */
export async function callTool(services: ToolServices, tool: AnyTool, args: unknown, call: ToolCall): Promise<ToolOutcome> {
  registerWorkspaceSecrets(services);
  let checked: unknown;
  try {
    checked = checkAgainstSchema(tool.inputSchema, args ?? {}, 'arguments');
  } catch (e) {
    if (!(e instanceof SchemaMismatchError)) throw e;
    return { ok: false, kind: 'arguments', text: redact(`${e.message}. ${argumentsHelp(tool)}`) };
  }
  try {
    const value = redactDeep(await tool.run(services, checked, call));
    return { ok: true, value, text: redact(tool.text(value)) };
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    if (call.signal.aborted) return { ok: false, kind: 'cancelled', text: 'cancelled: nothing more was run; what finished before is kept' };
    if (e instanceof ToolArgumentError) return { ok: false, kind: 'arguments', text: redact(message) };
    if (e instanceof ToolRefusal) return { ok: false, kind: 'refused', text: redact(message) };
    services.log(`${tool.id} failed: ${redact(e instanceof Error ? (e.stack ?? message) : message)}`);
    return { ok: false, kind: 'failed', text: redact(`${tool.id} failed: ${message}`) };
  }
}
