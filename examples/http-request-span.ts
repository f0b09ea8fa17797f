// An app that already has OpenTelemetry: an HTTP service whose request span contains the agent
// run. The app registers its tracer provider and the undici instrumentation; relaytrace is handed
// that provider, so the agent's spans join the request's trace, and the undici client span of the
// real provider request nests under relaytrace's model-call span.
//   npx tsx examples/http-request-span.ts
// prints the one trace as a tree. In a real app the provider's span processor would send to a
// collector (OTLPTraceExporter) instead of memory.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import { context, propagation, SpanKind } from "@opentelemetry/api";
import { UndiciInstrumentation } from "@opentelemetry/instrumentation-undici";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { request } from "undici";
import { createClient, createRuntime, createToolkit, defineTool } from "relaytrace";
import { OtelExporter } from "relaytrace/exporters";
import { startScriptedProvider } from "relaytrace/testing";

export interface HttpRequestSpanResult {
  /** The trace, one line per span, indented under its parent. */
  tree: string[];
  traceIds: number;
  answer: string;
}

function treeOf(spans: readonly ReadableSpan[]): string[] {
  const children = new Map<string | undefined, ReadableSpan[]>();
  const ids = new Set(spans.map((s) => s.spanContext().spanId));
  for (const s of [...spans].sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1])) {
    const parent = s.parentSpanContext && ids.has(s.parentSpanContext.spanId) ? s.parentSpanContext.spanId : undefined;
    children.set(parent, [...(children.get(parent) ?? []), s]);
  }
  const lines: string[] = [];
  const stack: [ReadableSpan, number][] = (children.get(undefined) ?? []).map((s) => [s, 0]);
  while (stack.length > 0) {
    const [span, depth] = stack.shift()!;
    lines.push(`${"  ".repeat(depth)}${span.name}`);
    stack.unshift(...(children.get(span.spanContext().spanId) ?? []).map((c): [ReadableSpan, number] => [c, depth + 1]));
  }
  return lines;
}

export async function main(): Promise<HttpRequestSpanResult> {
  // --- the app's OpenTelemetry setup, as it was before relaytrace ---
  const spans = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ "service.name": "support-api" }),
    spanProcessors: [new SimpleSpanProcessor(spans)],
  });
  provider.register();
  const undici = new UndiciInstrumentation();
  undici.setTracerProvider(provider);
  undici.enable();
  const tracer = provider.getTracer("support-api");

  // --- relaytrace joins it: one option ---
  const runtime = createRuntime();
  new OtelExporter({ projection: "gen_ai", tracerProvider: provider }).register(runtime);

  const model = await startScriptedProvider({
    turns: [
      { toolCalls: [{ id: "call_1", name: "order_status", arguments: { id: "A-17" } }], usage: { promptTokens: 40, completionTokens: 8 } },
      { text: "Order A-17 has shipped.", usage: { promptTokens: 60, completionTokens: 7 } },
    ],
  });
  const orderStatus = defineTool({
    name: "order_status",
    description: "Status of an order",
    inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
    execute: ({ id }) =>
      tracer.startActiveSpan("SELECT orders", (query) => {
        query.end(); // the app's own database span, inside the relaytrace tool span
        return { id, status: "shipped" };
      }),
  });
  const toolkit = await createToolkit({ tools: [orderStatus] });
  const client = createClient({
    baseUrl: model.url,
    style: "openai",
    model: "support-model",
    apiKey: "sk-demo",
    runtime,
    agentName: "support-agent",
  });

  // The service: its request span is what the http instrumentation would start for each request.
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const incoming = propagation.extract(context.active(), req.headers);
    void tracer.startActiveSpan(`${req.method} /ask`, { kind: SpanKind.SERVER }, incoming, async (span) => {
      const run = await client.run("Where is order A-17?", { toolkit });
      res.end(run.text);
      span.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/ask`;

  try {
    // A caller (its undici client span starts the trace and carries it to the service).
    const response = await request(url);
    const answer = await response.body.text();
    await runtime.shutdown(); // flushes relaytrace's spans into the app's provider
    const finished = spans.getFinishedSpans();
    return { tree: treeOf(finished), traceIds: new Set(finished.map((s) => s.spanContext().traceId)).size, answer };
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await model.close();
    undici.disable();
    await provider.shutdown();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { tree, traceIds, answer } = await main();
  console.log(answer);
  console.log(`${traceIds} trace:`);
  for (const line of tree) console.log(`  ${line}`);
}
