import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { defineTool, type Tool } from "../../agent/tool.js";
import type { JsonObject } from "../../events/json.js";
import { withTraceparent } from "./trace-context.js";
import { contentText, McpToolError, resultValue, type McpToolResult } from "./tool-result.js";

/** Options of `mcpTools`. */
export interface McpToolsOptions {
  /** Put before every tool name (`github_` makes `create_issue` `github_create_issue`). */
  prefix?: string;
}

/**
 * The tools of an MCP server as relaytrace tools for `createToolkit`: every page of `tools/list`,
 * each tool's input schema validated by ajv before a call as for any tool, each call made with
 * `client.callTool` with the trace context in `_meta.traceparent`. An `isError` result becomes the tool's error result; the run goes on.
 */
export async function mcpTools(client: Client, options: McpToolsOptions = {}): Promise<Tool[]> {
  const prefix = options.prefix ?? "";
  const tools: Tool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor !== undefined ? { cursor } : undefined);
    for (const listed of page.tools) {
      tools.push(
        defineTool({
          name: `${prefix}${listed.name}`,
          description: listed.description ?? listed.title ?? listed.name,
          inputSchema: listed.inputSchema as JsonObject,
          source: "mcp",
          async execute(args, ctx) {
            const result = (await client.callTool(withTraceparent({ name: listed.name, arguments: args }), undefined, {
              signal: ctx.signal,
            })) as McpToolResult;
            if (result.isError === true) throw new McpToolError(listed.name, contentText(result.content));
            return resultValue(result);
          },
        }),
      );
    }
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return tools;
}
