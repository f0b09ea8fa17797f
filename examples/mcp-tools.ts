// An MCP server's tools in the relaytrace loop, and a traced MCP client: `mcpTools` lists the
// server's tools as relaytrace tools (each call traced, its trace context sent in `_meta`), and
// `traceMcpClient` traces direct `callTool` / `readResource` calls with the MCP attributes. The
// server (examples/mcp-weather-server.mjs) runs as a child process over stdio; the model is the
// scripted OpenAI-compatible server on 127.0.0.1.
import { fileURLToPath, pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { createClient, createRuntime, createToolkit, type AtofEvent, type RunResult } from "relaytrace";
import { mcpTools, traceMcpClient } from "relaytrace/mcp";
import { EventCapture, startScriptedProvider } from "relaytrace/testing";

const SERVER = fileURLToPath(new URL("./mcp-weather-server.mjs", import.meta.url));

export interface McpExampleResult {
  result: RunResult;
  stations: string;
  events: AtofEvent[];
}

export async function main(): Promise<McpExampleResult> {
  const model = await startScriptedProvider({
    model: "gpt-4.1-mini",
    turns: [{ toolCalls: [{ id: "call_1", name: "weather_get_weather", arguments: { city: "Oslo" } }] }, { text: "It is 4 °C in Oslo." }],
  });
  const runtime = createRuntime();
  const capture = new EventCapture();
  capture.register(runtime);
  const mcp = traceMcpClient(new Client({ name: "mcp-example", version: "1.0.0" }), { runtime });
  await mcp.connect(new StdioClientTransport({ command: process.execPath, args: [SERVER], stderr: "pipe" }));

  try {
    const toolkit = await createToolkit({ tools: await mcpTools(mcp, { prefix: "weather_" }) });
    const client = createClient({ baseUrl: model.url, style: "openai", model: "gpt-4.1-mini", apiKey: "sk-example", runtime });
    const result = await client.run("Weather in Oslo?", { toolkit });
    const resource = await runtime.withScope("list-stations", () => mcp.readResource({ uri: "weather://stations" }), { category: "agent" });
    const stations = String((resource.contents[0] as { text?: string }).text);
    await runtime.flush();
    console.log(result.text);
    console.log(stations);
    return { result, stations, events: capture.events };
  } finally {
    await mcp.close();
    await runtime.shutdown();
    await model.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
