/**
 * Why a tool call did not do what it was asked. The caller (an agent, through MCP or the editor's
 * language-model tools) reads the message and acts on it, so each one says what to do next.
 */

/** The arguments are wrong (a field, a path, a function name): call again with others. */
export class ToolArgumentError extends Error {}

/** The arguments are fine but this machine or configuration cannot do it (no toolchain, no model): the user must change something. */
export class ToolRefusal extends Error {}
