// relaytrace/mcp — MCP servers as relaytrace tools, and traced MCP clients (`@modelcontextprotocol/sdk` 1.x).
export { DEFAULT_MCP_LIST_TIMEOUT_MS, DEFAULT_MCP_MAX_PAGES, mcpTools } from "./mcp-tools.js";
export type { McpToolsOptions } from "./mcp-tools.js";
export { traceMcpClient } from "./trace-client.js";
export type { TraceMcpClientOptions } from "./trace-client.js";
export { McpToolError } from "./tool-result.js";
