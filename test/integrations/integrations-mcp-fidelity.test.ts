// Tracing an MCP client never changes what the app sends or receives (only the recorded copy is
// bounded), and listing a server's tools is bounded in pages and time. Real MCP servers (the
// official SDK's low-level Server) over Streamable HTTP on 127.0.0.1.
import { randomUUID } from "node:crypto";
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { createRuntime, RelaytraceError, type AtofEvent } from "relaytrace";
import { DEFAULT_MCP_MAX_PAGES, mcpTools, traceMcpClient } from "relaytrace/mcp";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface ServerLog {
  /** The JSON text of each tools/call request's arguments as they came over the wire (read from the raw HTTP body). */
  callArguments: (string | undefined)[];
  /** The cursor of each tools/list request (undefined for the first page). */
  listCursors: (string | undefined)[];
}

type ListBehaviour = (cursor: string | undefined, page: number) => { nextCursor?: string } | "hang";

/** A low-level MCP server on 127.0.0.1: `echo` answers with the raw JSON of its arguments; tools/list pages as told. */
async function serve(list: ListBehaviour): Promise<{ client: Client; log: ServerLog }> {
  const log: ServerLog = { callArguments: [], listCursors: [] };
  const mcp = new Server({ name: "fidelity", version: "1.0.0" }, { capabilities: { tools: {} } });
  const hung: (() => void)[] = [];
  mcp.setRequestHandler(ListToolsRequestSchema, async (request) => {
    const cursor = request.params?.cursor;
    log.listCursors.push(cursor);
    const page = log.listCursors.length;
    const next = list(cursor, page);
    if (next === "hang") await new Promise<void>((resolve) => hung.push(resolve)); // answers only when the test closes
    const tool = { name: `tool_${page}`, description: `tool of page ${page}`, inputSchema: { type: "object" as const } };
    return { tools: [tool], ...(next !== "hang" && next.nextCursor !== undefined ? { nextCursor: next.nextCursor } : {}) };
  });
  mcp.setRequestHandler(CallToolRequestSchema, async (request) => {
    const text = JSON.stringify(request.params.arguments ?? null);
    return { content: [{ type: "text", text }], structuredContent: { received: text } };
  });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
  await mcp.connect(transport);
  // The raw request body is read here, before the SDK parses it: what the client put on the wire.
  const http: HttpServer = createServer(async (req, res) => {
    if (req.method !== "POST") return void transport.handleRequest(req, res);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { method?: string; params?: { arguments?: unknown } };
    if (body.method === "tools/call") {
      log.callArguments.push(body.params?.arguments === undefined ? undefined : JSON.stringify(body.params.arguments));
    }
    void transport.handleRequest(req, res, body);
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  const client = new Client({ name: "relaytrace-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`)));
  cleanups.push(async () => {
    for (const release of hung) release();
    await client.close();
    await mcp.close();
    http.closeAllConnections();
    await new Promise<void>((r) => http.close(() => r()));
  });
  return { client, log };
}

/** `levels` nested objects around a leaf: {"d":{"d":...{"leaf":true}}}. */
function nested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: true };
  for (let i = 0; i < levels; i++) value = { d: value };
  return value;
}

describe("traceMcpClient forwards exactly what the app passes", () => {
  it("deep nesting and own __proto__ keys reach the server unchanged; the app gets the server's answer unchanged", async () => {
    const { client, log } = await serve(() => ({}));
    const runtime = createRuntime();
    const events: AtofEvent[] = [];
    runtime.subscribe("capture", (e) => void events.push(e));
    const traced = traceMcpClient(client, { runtime });
    const args = { deep: nested(150), ...(JSON.parse('{"__proto__": {"role": "admin"}, "when": "now"}') as object) };
    const sent = JSON.stringify(args);

    const direct = await client.callTool({ name: "echo", arguments: args });
    const result = await traced.callTool({ name: "echo", arguments: args });

    // what the untraced call put on the wire is the reference: tracing must not differ from it
    expect(log.callArguments[0]).toBe(sent);
    expect(log.callArguments[1]).toBe(sent);
    expect(result).toEqual(direct);
    expect(result.structuredContent).toEqual({ received: expect.stringContaining('"leaf":true') });
    await runtime.flush();
    // the recorded copy is bounded: it is the event that is cut, not the request
    const start = events.find((e) => e.kind === "scope" && e.scope_category === "start" && e.name === "echo")!;
    expect(JSON.stringify(start.data)).toContain("[MaxDepth]");
    expect(Object.getOwnPropertyDescriptor(start.data, "__proto__")?.value).toEqual({ role: "admin" });
  });

  it("a call without arguments sends none; a request intercept's rewrite is what the server gets", async () => {
    const { client, log } = await serve(() => ({}));
    const runtime = createRuntime();
    const traced = traceMcpClient(client, { runtime });
    await traced.callTool({ name: "echo" });
    expect(log.callArguments[0]).toBeUndefined();
    runtime.registerToolRequestIntercept("rewrite", 1, (_tool, args) => ({ ...(args as object), added: 1 }));
    await traced.callTool({ name: "echo", arguments: { q: "x" } });
    expect(JSON.parse(log.callArguments[1]!)).toEqual({ q: "x", added: 1 });
  });
});

describe("traceMcpClient when an execution intercept answers instead of the server", () => {
  it("the app gets the intercept's result as a tool result, never undefined; the server is not called", async () => {
    const { client, log } = await serve(() => ({}));
    const runtime = createRuntime();
    runtime.registerToolExecutionIntercept("cache", 1, () => ({ result: { cached: true } }));
    const traced = traceMcpClient(client, { runtime });
    const result = await traced.callTool({ name: "echo", arguments: { q: 1 } });
    expect(result).toEqual({ content: [{ type: "text", text: '{"cached":true}' }], structuredContent: { cached: true } });
    expect(log.callArguments).toEqual([]);
  });
});

describe("mcpTools bounds the listing of a server's tools", () => {
  it("a server that returns a new nextCursor forever fails after the page bound with a clear error", async () => {
    const { client, log } = await serve((_cursor, page) => ({ nextCursor: `page-${page + 1}` }));
    const listing = mcpTools(client, { maxPages: 5 });
    await expect(listing).rejects.toBeInstanceOf(RelaytraceError);
    await expect(listing).rejects.toThrow(/tools\/list still returned a nextCursor after 5 pages \(5 tools so far\)/);
    expect(log.listCursors).toEqual([undefined, "page-2", "page-3", "page-4", "page-5"]);
  });

  it("the default page bound is 100 pages", async () => {
    const { client, log } = await serve((_cursor, page) => ({ nextCursor: `page-${page + 1}` }));
    await expect(mcpTools(client)).rejects.toThrow(`after ${DEFAULT_MCP_MAX_PAGES} pages`);
    expect(log.listCursors).toHaveLength(DEFAULT_MCP_MAX_PAGES);
  });

  it("a cursor sent twice is a cycle, named as such", async () => {
    const { client } = await serve((cursor) => ({ nextCursor: cursor === "a" ? "b" : "a" }));
    await expect(mcpTools(client)).rejects.toThrow(/returned the cursor "a" twice \(a cycle\)/);
  });

  it("a page that never comes fails the listing at the time bound", async () => {
    // The second page never comes, so the bound is what ends the listing, however slow the first page is.
    const { client, log } = await serve((_cursor, page) => (page === 2 ? "hang" : { nextCursor: "second" }));
    const listing = mcpTools(client, { timeoutMs: 1000 });
    await expect(listing).rejects.toMatchObject({
      code: "timeout",
      message: expect.stringMatching(/^mcpTools: tools\/list did not finish within 1000 ms \((0 pages|1 page) read\)$/),
    });
    expect(log.listCursors[0]).toBeUndefined();
  });

  it("a server that pages properly lists every tool; bad bounds are a TypeError naming the option", async () => {
    const { client } = await serve((_cursor, page) => (page < 3 ? { nextCursor: `page-${page + 1}` } : {}));
    const tools = await mcpTools(client, { maxPages: 3 });
    expect(tools.map((t) => t.name)).toEqual(["tool_1", "tool_2", "tool_3"]);
    await expect(mcpTools(client, { maxPages: 0 })).rejects.toThrow("mcpTools: maxPages must be a positive integer (got 0)");
    await expect(mcpTools(client, { timeoutMs: Number.NaN })).rejects.toThrow(
      "mcpTools: timeoutMs must be an integer from 1 to 2147483647 (got NaN)",
    );
    // past the longest timer a listing would time out at once
    await expect(mcpTools(client, { timeoutMs: 2 ** 31 })).rejects.toThrow(/mcpTools: timeoutMs must be an integer from 1 to 2147483647/);
  });
});
