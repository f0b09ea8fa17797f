import type { Json } from "../../events/json.js";
import { toJsonSafe } from "../../runtime/json-safe.js";

/** What `client.callTool` returns, in the parts this adapter reads. */
export interface McpToolResult {
  content?: unknown;
  structuredContent?: unknown;
  isError?: unknown;
  toolResult?: unknown;
}

/** The text of an MCP content list (text parts joined; other parts named by type). */
export function contentText(content: unknown): string {
  if (!Array.isArray(content)) return "";
  return content
    .map((part: { type?: unknown; text?: unknown }) =>
      part?.type === "text" && typeof part.text === "string" ? part.text : `[${String(part?.type)}]`,
    )
    .join("\n");
}

/** A tool result as a value: structured content when the server sent it, else the text. */
export function resultValue(result: McpToolResult): Json {
  if (result.structuredContent !== undefined) return toJsonSafe(result.structuredContent);
  if (result.toolResult !== undefined) return toJsonSafe(result.toolResult);
  return contentText(result.content);
}

/** The error an `isError` result stands for. */
export class McpToolError extends Error {
  constructor(tool: string, message: string) {
    super(message === "" ? `MCP tool ${tool} failed` : message);
    this.name = "McpToolError";
  }
}
