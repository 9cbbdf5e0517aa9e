import { TOOLS, type AnyTool, type ToolId } from '../engine/tools';

/** MCP's style for tool names: `focalFunctions` -> `focal_functions`. */
export function mcpToolName(id: ToolId): string {
  return id.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

export function toolByMcpName(name: string): AnyTool | undefined {
  return TOOLS.find((t) => mcpToolName(t.id) === name);
}
