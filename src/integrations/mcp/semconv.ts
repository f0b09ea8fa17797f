import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { JsonObject } from "../../events/json.js";

/** The MCP semantic-convention attributes of one client request, as scope metadata. */
export function mcpAttributes(client: Client, method: string, target: Record<string, string>): JsonObject {
  const transport = client.transport;
  const attributes: JsonObject = { "mcp.method.name": method, ...target };
  const sessionId = transport?.sessionId;
  if (sessionId !== undefined) attributes["mcp.session.id"] = sessionId;
  // A stdio transport is a pipe to a child process; the HTTP transports run over TCP.
  const kind = transport?.constructor.name ?? "";
  if (kind.startsWith("Stdio")) attributes["network.transport"] = "pipe";
  else if (kind.includes("HTTP") || kind.includes("SSE")) attributes["network.transport"] = "tcp";
  return attributes;
}
