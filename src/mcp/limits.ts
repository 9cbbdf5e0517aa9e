/**
 * 10 MiB for one JSON-RPC message, the MCP SDK's own stdio limit: the largest real call (a
 * 200,000-character test, every character escaped) is about 1.2 MB. Its own module, free of the SDK,
 * so the CLI's flag definitions can name it without loading the SDK at start.
 */
export const DEFAULT_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
