// Typed tools: a literal JSON Schema types `execute`'s arguments (no casts, no Number(a)), and a
// Standard Schema (zod here; ArkType and Valibot work the same) is declared to the model as JSON
// Schema and validated by itself, so `execute` gets its parsed output, defaults applied.
import { pathToFileURL } from "node:url";
import { z } from "zod";
import { createClient, createRuntime, createToolkit, defineTool } from "relaytrace";
import type { RunResult } from "relaytrace";
import { startScriptedProvider } from "relaytrace/testing";

export interface TypedToolsResult {
  result: RunResult;
  /** The schemas the model was shown, by tool name. */
  declared: Record<string, unknown>;
}

export async function main(): Promise<TypedToolsResult> {
  const model = await startScriptedProvider({
    turns: [
      {
        toolCalls: [
          { id: "c1", name: "add", arguments: { a: 3, b: 4 } },
          { id: "c2", name: "forecast", arguments: { city: "Oslo" } },
        ],
      },
      { text: "7, and Oslo looks dry for 2 days" },
    ],
  });
  try {
    // `a` and `b` are numbers to the type checker because the schema says so.
    const add = defineTool({
      name: "add",
      description: "Add two numbers",
      inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
      execute: ({ a, b }) => String(a + b),
    });
    // `days` is always a number here: zod filled in the default before execute ran.
    const forecast = defineTool({
      name: "forecast",
      description: "Weather forecast for a city",
      inputSchema: z.object({ city: z.string(), days: z.number().int().min(1).default(2) }),
      execute: ({ city, days }) => `${city}: dry for ${days} days`,
    });
    const toolkit = await createToolkit({ tools: [add, forecast] });
    const client = createClient({ baseUrl: model.url, style: "openai", model: "stub", apiKey: "k", runtime: createRuntime() });
    const result = await client.run("3 + 4, and the weather in Oslo?", { toolkit });
    console.log(result.toolCalls.map((c) => `${c.name} -> ${c.output}`).join("\n"));
    return { result, declared: Object.fromEntries(toolkit.declarations().map((d) => [d.name, d.inputSchema])) };
  } finally {
    await model.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
