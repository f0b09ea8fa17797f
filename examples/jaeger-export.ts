// Exports an agent run to Jaeger (or any OpenTelemetry Collector) over OTLP/HTTP.
//   docker run --rm -p 16686:16686 -p 4318:4318 jaegertracing/all-in-one
//   npx tsx examples/jaeger-export.ts openinference     # or: full | gen_ai
// then open http://localhost:16686 and look for service "relaytrace-example".
// One projection per run: two exporters with different projections on one endpoint would send
// two copies of every span with the same ids, which a backend cannot tell apart.
import { pathToFileURL } from "node:url";
import { createClient, createRuntime, createToolkit, defineTool } from "relaytrace";
import type { Diagnostic, RunResult } from "relaytrace";
import { OtelExporter } from "relaytrace/exporters";
import type { ProjectionName } from "relaytrace/exporters";
import { startScriptedProvider } from "relaytrace/testing";

const PROJECTIONS: readonly ProjectionName[] = ["full", "openinference", "gen_ai"];

export interface JaegerExportOptions {
  projection?: string;
  endpoint?: string;
}

export interface JaegerExportResult {
  projection: ProjectionName;
  endpoint: string;
  result: RunResult;
  diagnostics: Diagnostic[];
}

export async function main(options: JaegerExportOptions = {}): Promise<JaegerExportResult> {
  const chosen = options.projection ?? process.env.RELAYTRACE_PROJECTION ?? "full";
  if (!PROJECTIONS.includes(chosen as ProjectionName))
    throw new Error(`unknown projection "${chosen}"; use one of ${PROJECTIONS.join(", ")}`);
  const projection = chosen as ProjectionName;
  const endpoint = options.endpoint ?? process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? "http://localhost:4318/v1/traces";

  const model = await startScriptedProvider({
    model: "demo-model",
    turns: [
      {
        toolCalls: [{ id: "call_1", name: "get_weather", arguments: { city: "Oslo" } }],
        usage: { promptTokens: 120, completionTokens: 18 },
      },
      { text: "It is 4 °C with light rain in Oslo.", usage: { promptTokens: 160, completionTokens: 14 } },
    ],
  });
  const runtime = createRuntime();
  // The exporter subscribes to the runtime; runtime.shutdown() flushes it.
  new OtelExporter({ projection, endpoint, serviceName: "relaytrace-example" }).register(runtime);
  try {
    const weather = defineTool({
      name: "get_weather",
      description: "Current weather for a city",
      inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      execute: ({ city }) => JSON.stringify({ city, temp_c: 4, conditions: "light rain" }),
    });
    const toolkit = await createToolkit({ builtins: false, tools: [weather] });
    const client = createClient({
      baseUrl: model.url,
      style: "openai",
      model: "demo-model",
      apiKey: "not-a-secret",
      agentName: "weather-agent",
      runtime,
    });
    const result = await client.run("What is the weather in Oslo?", { toolkit });
    await runtime.shutdown();

    // Export failures (no collector listening, say) never throw into the app; they are counted here.
    const diagnostics = runtime.diagnostics();
    console.log(`agent answered: ${result.text}`);
    const failed = diagnostics.some((d) => d.code.startsWith("otel."));
    console.log(`${failed ? "could not send" : "sent"} the trace (projection ${projection}) to ${endpoint}`);
    for (const d of diagnostics) console.log(`  diagnostic ${d.code} x${d.count}: ${d.message}`);
    return { projection, endpoint, result, diagnostics };
  } finally {
    await runtime.shutdown();
    await model.close();
  }
}

// Run directly: the projection may be given as the first argument.
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const arg = process.argv[2];
  await main(arg ? { projection: arg } : {});
}
