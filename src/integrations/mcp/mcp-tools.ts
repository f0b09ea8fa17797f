import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { defineTool, type Tool } from "../../agent/tool.js";
import type { JsonObject } from "../../events/json.js";
import { check, declareOptions, is } from "../../events/option-spec.js";
import { RelaytraceError } from "../../runtime/errors.js";
import { withTraceparent } from "./trace-context.js";
import { contentText, McpToolError, resultValue, type McpToolResult } from "./tool-result.js";

/** Options of `mcpTools`. */
export interface McpToolsOptions {
  /** Put before every tool name (`github_` makes `create_issue` `github_create_issue`). */
  prefix?: string;
  /**
   * The most `tools/list` pages read (default 100). A server still answering with a `nextCursor`
   * after that many pages fails the listing with an error that says so.
   */
  maxPages?: number;
  /** The longest the whole listing may take, every page included, in milliseconds (default 60000). */
  timeoutMs?: number;
}

/** Pages of `tools/list` read at most unless `maxPages` says otherwise. */
export const DEFAULT_MCP_MAX_PAGES = 100;
/** Milliseconds the whole listing may take unless `timeoutMs` says otherwise. */
export const DEFAULT_MCP_LIST_TIMEOUT_MS = 60_000;

/** The longest delay a timer takes: a longer one would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

const MCP_TOOLS_OPTIONS = declareOptions<McpToolsOptions>("mcpTools", {
  prefix: is.string,
  maxPages: check("a positive integer", (v) => Number.isSafeInteger(v) && (v as number) > 0),
  timeoutMs: check(
    `an integer from 1 to ${MAX_TIMER_MS}`,
    (v) => Number.isInteger(v) && (v as number) > 0 && (v as number) <= MAX_TIMER_MS,
  ),
});

/**
 * The tools of an MCP server as relaytrace tools for `createToolkit`: every page of `tools/list`,
 * each tool's input schema validated by ajv before a call as for any tool, each call made with
 * `client.callTool` with the trace context in `_meta.traceparent`. An `isError` result becomes the tool's error result; the run goes on.
 * The listing is bounded: at most `maxPages` pages within `timeoutMs`, and a cursor the server
 * sends twice is a cycle; each ends the listing with a RelaytraceError that says which.
 */
export async function mcpTools(client: Client, options: McpToolsOptions = {}): Promise<Tool[]> {
  MCP_TOOLS_OPTIONS.check(options);
  const prefix = options.prefix ?? "";
  const maxPages = options.maxPages ?? DEFAULT_MCP_MAX_PAGES;
  const timeoutMs = options.timeoutMs ?? DEFAULT_MCP_LIST_TIMEOUT_MS;
  const listed = await listAllTools(client, maxPages, timeoutMs);
  return listed.map((tool) => mcpTool(client, tool, prefix));
}

type ListedTool = Awaited<ReturnType<Client["listTools"]>>["tools"][number];

async function listAllTools(client: Client, maxPages: number, timeoutMs: number): Promise<ListedTool[]> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), timeoutMs);
  timer.unref();
  const tools: ListedTool[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  let pages = 0;
  try {
    do {
      if (pages === maxPages) {
        throw new RelaytraceError(
          "upstream_error",
          `mcpTools: tools/list still returned a nextCursor after ${maxPages} pages (${tools.length} tools so far); ` +
            "the server pages without end, or lists more than maxPages pages",
        );
      }
      let page: Awaited<ReturnType<Client["listTools"]>>;
      try {
        page = await client.listTools(cursor !== undefined ? { cursor } : undefined, { signal: deadline.signal });
      } catch (error) {
        if (!deadline.signal.aborted) throw error;
        throw new RelaytraceError(
          "timeout",
          `mcpTools: tools/list did not finish within ${timeoutMs} ms (${pages} ${pages === 1 ? "page" : "pages"} read)`,
          {
            cause: error,
          },
        );
      }
      pages++;
      tools.push(...page.tools);
      cursor = page.nextCursor;
      if (cursor !== undefined) {
        if (seen.has(cursor)) {
          throw new RelaytraceError("upstream_error", `mcpTools: tools/list returned the cursor ${JSON.stringify(cursor)} twice (a cycle)`);
        }
        seen.add(cursor);
      }
    } while (cursor !== undefined);
  } finally {
    clearTimeout(timer);
  }
  return tools;
}

function mcpTool(client: Client, listed: ListedTool, prefix: string): Tool {
  return defineTool({
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
  });
}
