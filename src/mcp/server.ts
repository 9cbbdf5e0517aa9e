/**
 * The agents' tools (src/engine/tools) over the Model Context Protocol: `tools/list` shows each tool
 * under its MCP name with its JSON Schema and what it may do (annotations); `tools/call` runs it
 * through the engine's `callTool` (arguments checked, secrets redacted), with the request's
 * cancellation and, when the client asks for it, progress notifications.
 *
 * The SDK's low-level `Server`, not `McpServer`: McpServer takes zod schemas and converts them, while
 * the tools' schemas are JSON Schema held as data, the same objects VS Code's language-model tools
 * are declared with, and checked by ajv with the messages the editor's requests get.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { callTool, TOOLS, type AnyTool, type ToolServices } from '../engine/tools';
import { monotonicProgress } from './progress';
import { mcpToolName, toolByMcpName } from './tool-names';

/** What the server says about itself to clients that show it to the model. */
const INSTRUCTIONS =
  'XRepoTest scores unit tests for Rust, Go, Julia, PHP and Ruby functions of one workspace: focal_functions lists a file\'s functions and their scores; ' +
  'score_test runs a test you wrote in a disposable, isolated copy and returns compile/pass, focal line coverage with the lines not run, whether it calls ' +
  'the function, the failure category and the runner\'s message; mutants returns the changes a passing test does not catch, with their diffs; generate_tests has the configured model write and score tests; coverage returns the last ' +
  'known coverage; run_benchmark scores a whole dataset. Paths are relative to the workspace; nothing outside it is reachable.';

export function mcpToolOf(tool: AnyTool): Tool {
  const readOnly = !tool.runsCode && !tool.callsModel;
  return {
    name: mcpToolName(tool.id),
    title: tool.title,
    description: tool.description(mcpToolName),
    inputSchema: tool.inputSchema as Tool['inputSchema'],
    outputSchema: tool.outputSchema as Tool['outputSchema'],
    annotations: {
      title: tool.title,
      readOnlyHint: readOnly,
      // Runs add scorings and run folders (outside the workspace); they never change or delete anything.
      destructiveHint: false,
      idempotentHint: readOnly,
      openWorldHint: tool.callsModel,
    },
  };
}

/** Calls in flight, so a shutdown can wait for them to stop (their sandboxes are removed as they unwind). */
export type InFlight = Set<Promise<unknown>>;

export function createMcpServer(services: ToolServices, version: string, inFlight: InFlight = new Set()): Server {
  const server = new Server({ name: 'xrepotest', version }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOLS.map(mcpToolOf) }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name, arguments: args, _meta } = request.params;
    const tool = toolByMcpName(name);
    // Not an McpError: its message already starts "MCP error -32602:", and the client's error adds that again.
    if (!tool) throw Object.assign(new Error(`unknown tool ${JSON.stringify(name)}: the tools are ${TOOLS.map((t) => mcpToolName(t.id)).join(', ')}`), { code: ErrorCode.InvalidParams });
    const token = _meta?.progressToken;
    const progress =
      token === undefined
        ? undefined
        : monotonicProgress((p) => void extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, ...p } }).catch(() => undefined));
    const running = callTool(services, tool, args, { signal: extra.signal, progress, agent: server.getClientVersion()?.name });
    inFlight.add(running);
    try {
      const outcome = await running;
      const content: CallToolResult['content'] = [{ type: 'text', text: outcome.text }];
      // A tool's failure is the call's result, not a protocol error: the model reads it and can act on it.
      return outcome.ok ? { content, structuredContent: outcome.value as Record<string, unknown> } : { content, isError: true };
    } finally {
      inFlight.delete(running);
    }
  });

  return server;
}
