// Interop scenario: a user's program that opted into semantic-conventions-genai v0.1.0 through
// OTEL_SEMCONV_STABILITY_OPT_IN (set by the test in this process's environment) and sends the
// gen_ai projection's traces, logs and metrics over OTLP/HTTP. A workflow runs an agent that
// calls a tool, then a model call fails. Prints `{"conventions": ...}` when done.
import { createClient, createRuntime, createToolkit, defineTool } from "relaytrace";
import { OtelExporter } from "relaytrace/exporters";
import { startScriptedProvider } from "relaytrace/testing";

const otlp = process.argv[2];
if (!otlp) throw new Error("usage: gen-ai-latest.ts <otlp base url>");

const model = await startScriptedProvider({
  model: "interop-model",
  turns: [
    {
      toolCalls: [{ id: "call_stock", name: "check_stock", arguments: { sku: "sku-42" } }],
      usage: { promptTokens: 120, completionTokens: 30, cachedTokens: 100 },
    },
    { text: "sku-42 has 7 units.", usage: { promptTokens: 180, completionTokens: 20 } },
  ],
});
try {
  const runtime = createRuntime();
  const exporter = new OtelExporter({
    projection: "gen_ai",
    endpoint: `${otlp}/v1/traces`,
    serviceName: "relaytrace-genai-latest",
    protocol: "http/protobuf",
    scheduledDelayMillis: 200,
    logs: { endpoint: `${otlp}/v1/logs` },
    metrics: { endpoint: `${otlp}/v1/metrics`, exportIntervalMillis: 200 },
  });
  exporter.register(runtime);
  const checkStock = defineTool({
    name: "check_stock",
    description: "Units in stock for a product",
    inputSchema: { type: "object", properties: { sku: { type: "string" } }, required: ["sku"] },
    execute: ({ sku }) => JSON.stringify({ sku, units: 7 }),
  });
  const client = createClient({
    baseUrl: model.url,
    style: "openai",
    model: "interop-model",
    apiKey: "k",
    agentName: "stock-agent",
    runtime,
  });
  const toolkit = await createToolkit({ builtins: false, tools: [checkStock] });
  await runtime.withScope("inventory", () => client.run("How many sku-42?", { toolkit }), {
    metadata: { "gen_ai.operation.name": "invoke_workflow", "gen_ai.agent.name": "inventory-crew" },
  });
  class RateLimitError extends Error {
    override name = "RateLimitError";
  }
  await runtime
    .executeLlm("openai.chat_completions", { headers: {}, content: { model: "interop-model", messages: [] } }, () => {
      throw new RateLimitError("429 too many requests");
    })
    .catch(() => undefined);
  await runtime.shutdown();
  console.log(JSON.stringify({ conventions: exporter.genAiConventions, diagnostics: exporter.diagnostics() }));
} finally {
  await model.close();
}
