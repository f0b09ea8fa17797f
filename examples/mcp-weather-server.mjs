// A small MCP server (the official SDK), used by examples/mcp-tools.ts and the tests: run as a program it serves
// stdio; imported, `createWeatherServer()` gives a server to connect to any transport. Each tool
// result carries the traceparent the request's _meta brought, so a test can see it arrive.
import { pathToFileURL } from "node:url";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

export function createWeatherServer() {
  const server = new McpServer({ name: "weather", version: "1.0.0" });
  server.registerTool(
    "get_weather",
    { description: "Current weather of a city", inputSchema: { city: z.string() } },
    async ({ city }, extra) => ({
      content: [{ type: "text", text: JSON.stringify({ city, temp_c: 4 }) }],
      structuredContent: { city, temp_c: 4, traceparent: extra._meta?.traceparent ?? null },
    }),
  );
  server.registerTool(
    "delete_station",
    { description: "Remove a weather station", inputSchema: { user: z.string(), station: z.string() } },
    async ({ station }) => ({ content: [{ type: "text", text: `station ${station} is protected` }], isError: true }),
  );
  server.registerResource(
    "stations",
    "weather://stations",
    { description: "Known stations", mimeType: "application/json" },
    async (uri, extra) => ({
      contents: [
        {
          uri: uri.href,
          mimeType: "application/json",
          text: JSON.stringify({ stations: ["OSL", "BGO"], traceparent: extra._meta?.traceparent ?? null }),
        },
      ],
    }),
  );
  server.registerPrompt("forecast", { description: "Ask for a forecast", argsSchema: { city: z.string() } }, async ({ city }) => ({
    messages: [{ role: "user", content: { type: "text", text: `What is the forecast for ${city}?` } }],
  }));
  return server;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  await createWeatherServer().connect(new StdioServerTransport());
}
