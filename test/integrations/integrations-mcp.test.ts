import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import { createClient, createToolkit, spanIdOf } from "relaytrace";
import { mcpTools, traceMcpClient } from "relaytrace/mcp";
import { startScriptedProvider, type ScriptedProvider } from "relaytrace/testing";
import { ANNOTATION, MASKED, REFUSAL, attr, ends, integrationRun, starts } from "../support/integration-run.js";
import { createWeatherServer } from "../../examples/mcp-weather-server.mjs";

const SERVER = fileURLToPath(new URL("../../examples/mcp-weather-server.mjs", import.meta.url));
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The weather server as a child process over stdio. */
async function stdioClient(): Promise<Client> {
  const client = new Client({ name: "relaytrace-test", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [SERVER], stderr: "pipe" }));
  cleanups.push(() => client.close());
  return client;
}

/** The weather server over Streamable HTTP on 127.0.0.1 (one stateful session). */
async function httpClient(): Promise<Client> {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
  const mcp = createWeatherServer();
  await mcp.connect(transport);
  const http: Server = createServer((req, res) => void transport.handleRequest(req, res));
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  const url = new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`);
  const client = new Client({ name: "relaytrace-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(url));
  cleanups.push(async () => {
    await client.close();
    await mcp.close();
    http.closeAllConnections();
    await new Promise<void>((r) => http.close(() => r()));
  });
  return client;
}

async function scripted(turns: Parameters<typeof startScriptedProvider>[0]["turns"]): Promise<ScriptedProvider> {
  const provider = await startScriptedProvider({ turns, model: "gpt-4.1-mini" });
  cleanups.push(() => provider.close());
  return provider;
}

describe("mcpTools: an MCP server's tools in the relaytrace loop", () => {
  it("over stdio: listed with a prefix, validated by schema, called through the server, a server error reaching the model, all traced", async () => {
    const mcp = await stdioClient();
    const tools = await mcpTools(mcp, { prefix: "weather_" });
    expect(tools.map((t) => t.name).sort()).toEqual(["weather_delete_station", "weather_get_weather"]);

    const provider = await scripted([
      {
        toolCalls: [
          { id: "call_ok", name: "weather_get_weather", arguments: { city: "Oslo" } },
          { id: "call_bad", name: "weather_get_weather", arguments: { city: 5 } },
          { id: "call_err", name: "weather_delete_station", arguments: { user: "ada", station: "OSL" } },
        ],
        usage: { promptTokens: 50, completionTokens: 20, cachedTokens: 10 },
      },
      { text: "Oslo is at 4 °C." },
    ]);
    const run = integrationRun("gen_ai");
    const client = createClient({ baseUrl: provider.url, style: "openai", model: "gpt-4.1-mini", apiKey: "sk-test", runtime: run.runtime });
    const result = await client.run("Weather in Oslo?", { toolkit: await createToolkit({ tools }) });
    expect(result.status).toBe("done");
    const byId = Object.fromEntries(result.toolCalls.map((c) => [c.id, c]));
    expect(byId["call_ok"]).toMatchObject({ isError: false });
    const served = JSON.parse(String(byId["call_ok"]!.output)) as { temp_c: number; traceparent: string };
    expect(served.temp_c).toBe(4);
    expect(byId["call_bad"]).toMatchObject({ isError: true });
    expect(String(byId["call_bad"]!.output)).toContain("city");
    expect(byId["call_err"]).toMatchObject({ isError: true, output: expect.stringContaining("station OSL is protected") });

    // what the model was told on the second turn: every call answered
    const second = provider.requests[1]!.body as { messages: { role: string; tool_call_id?: string }[] };
    expect(
      second.messages
        .filter((m) => m.role === "tool")
        .map((m) => m.tool_call_id)
        .sort(),
    ).toEqual(["call_bad", "call_err", "call_ok"]);

    const { events, spans, trajectories } = await run.finish();
    const ok = ends(events, "tool").find((e) => e.category_profile?.["tool_call_id"] === "call_ok")!;
    expect(ok.category_profile).toMatchObject({ tool_result_annotation: ANNOTATION });
    // the call carried the trace context to the server: the tool scope is the server's parent
    expect(served.traceparent.split("-")[2]).toBe(spanIdOf(ok.uuid));
    expect(starts(events, "tool").find((e) => e.category_profile?.["tool_call_id"] === "call_ok")!.data).toEqual({ city: MASKED });
    expect(starts(events, "agent")).toHaveLength(1);
    const steps = trajectories[0]!.steps;
    expect(steps[1]!.tool_calls?.map((c) => c.tool_call_id)).toEqual(["call_ok", "call_bad", "call_err"]);
    expect(steps[1]!.metrics).toMatchObject({ prompt_tokens: 50, cached_tokens: 10 });
    const toolSpans = spans.filter((s) => s.name === "execute_tool weather_get_weather");
    expect(toolSpans.map((s) => attr(s, "gen_ai.tool.call.id")).sort()).toEqual(["call_bad", "call_ok"]);
  });
});

describe("traceMcpClient: an MCP client used outside the loop", () => {
  it("over Streamable HTTP: tools/call, resources/read and prompts/get are scopes with MCP attributes, and the trace context reaches the server", async () => {
    const run = integrationRun("full");
    const traced = traceMcpClient(await httpClient(), { runtime: run.runtime });
    const callTool = traced.callTool;
    expect(traceMcpClient(traced, { runtime: run.runtime }).callTool).toBe(callTool); // wrapping twice changes nothing
    const sessionId = (traced.transport as StreamableHTTPClientTransport).sessionId;
    expect(sessionId).toBeDefined();

    const out = await run.runtime.withScope(
      "app",
      async () => {
        const weather = await traced.callTool({ name: "get_weather", arguments: { city: "Oslo" } });
        const refused = await traced.callTool({ name: "delete_station", arguments: { user: "root", station: "OSL" } });
        const failed = await traced.callTool({ name: "delete_station", arguments: { user: "ada", station: "OSL" } });
        const stations = await traced.readResource({ uri: "weather://stations" });
        const prompt = await traced.getPrompt({ name: "forecast", arguments: { city: "Oslo" } });
        return { weather, refused, failed, stations, prompt };
      },
      { category: "agent" },
    );

    // the app gets the server's answers unchanged; the refusal answers like a failed tool
    expect(out.weather.structuredContent).toMatchObject({ city: "Oslo", temp_c: 4 });
    expect(out.refused).toEqual({ content: [{ type: "text", text: REFUSAL }], isError: true });
    expect(out.failed).toMatchObject({ isError: true });
    expect(out.prompt.messages[0]!.content).toEqual({ type: "text", text: "What is the forecast for Oslo?" });

    const { events, spans } = await run.finish();
    const toolStarts = starts(events, "tool");
    expect(toolStarts.map((e) => e.name)).toEqual(["get_weather", "delete_station"]);
    expect(toolStarts[0]!.metadata).toMatchObject({
      "mcp.method.name": "tools/call",
      "mcp.session.id": sessionId,
      "gen_ai.tool.name": "get_weather",
      "network.transport": "tcp",
    });
    expect(toolStarts[0]!.data).toEqual({ city: MASKED });
    const [weatherEnd, failedEnd] = ends(events, "tool");
    expect(weatherEnd!.category_profile).toMatchObject({ tool_result_annotation: ANNOTATION });
    expect(failedEnd!.metadata).toMatchObject({ "otel.status_code": "ERROR", "otel.status_description": "station OSL is protected" });
    const fnNames = starts(events, "function").map((e) => [e.name, (e.metadata as Record<string, unknown>)["mcp.method.name"]]);
    expect(fnNames).toEqual([
      ["resources/read weather://stations", "resources/read"],
      ["prompts/get forecast", "prompts/get"],
    ]);

    // W3C trace context in _meta: the server saw the tool span as its parent, in the app's trace
    const traceparent = String((out.weather.structuredContent as { traceparent: string }).traceparent);
    const [, traceId, parentId] = traceparent.split("-");
    const toolSpan = spans.find((s) => s.name === "get_weather")!;
    expect(toolSpan.spanContext().traceId).toBe(traceId);
    expect(toolSpan.spanContext().spanId).toBe(parentId);
    expect(parentId).toBe(spanIdOf(toolStarts[0]!.uuid));
    expect(attr(toolSpan, "nemo_relay.start.metadata.mcp.method.name")).toBe("tools/call");
    const resourceText = String((out.stations.contents[0] as { text: string }).text);
    const resourceSpan = spans.find((s) => s.name === "resources/read weather://stations")!;
    expect(JSON.parse(resourceText).traceparent).toBe(`00-${traceId}-${resourceSpan.spanContext().spanId}-01`);
  });

  it("over stdio: the transport is a pipe, there is no session id, and the gen_ai tool span carries the MCP attributes", async () => {
    const run = integrationRun();
    const traced = traceMcpClient(await stdioClient(), { runtime: run.runtime });
    const result = await traced.callTool({ name: "get_weather", arguments: { city: "Bergen" } });
    expect(result.structuredContent).toMatchObject({ city: "Bergen" });
    const { events, spans } = await run.finish();
    const meta = starts(events, "tool")[0]!.metadata as Record<string, unknown>;
    expect(meta).toMatchObject({ "mcp.method.name": "tools/call", "network.transport": "pipe" });
    expect(meta["mcp.session.id"]).toBeUndefined();
    // the gen_ai projection carries the MCP attributes on the tool span
    const span = spans.find((s) => s.name === "execute_tool get_weather")!;
    expect([
      attr(span, "mcp.method.name"),
      attr(span, "network.transport"),
      attr(span, "gen_ai.tool.name"),
      attr(span, "mcp.session.id"),
    ]).toEqual(["tools/call", "pipe", "get_weather", undefined]);
  });
});
