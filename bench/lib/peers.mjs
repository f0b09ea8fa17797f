// Peer libraries doing the same job as one relaytrace tool call. Each factory returns { call, close }.
// Imported lazily: the peers are optional devDependencies of bench/ (`cd bench && npm install`).
import { NoopSpanExporter, TOOL_NAME, createRawOtelTool, toolFn } from "./workload.mjs";
import { relaytraceVariants } from "./variants.mjs";

export const PEER_LABELS = {
  rawOtel: "raw @opentelemetry/sdk-trace-base span (7 attrs)",
  openinference: "@arizeai/openinference-core traceTool",
  agentsCore: "@openai/agents-core withFunctionSpan",
  relaytraceOpeninference: "relaytrace + OTel openinference projection",
  relaytraceNone: "relaytrace, no subscriber",
};

export async function peersInstalled() {
  try {
    await import("@arizeai/openinference-core");
    await import("@openai/agents-core");
    await import("@opentelemetry/context-async-hooks");
    return true;
  } catch {
    return false;
  }
}

/** OpenInference as its docs set it up: a global provider with the AsyncLocalStorage context manager. */
async function openinference() {
  const { context, trace } = await import("@opentelemetry/api");
  const { AsyncLocalStorageContextManager } = await import("@opentelemetry/context-async-hooks");
  const { BasicTracerProvider, BatchSpanProcessor } = await import("@opentelemetry/sdk-trace-base");
  const { traceTool } = await import("@arizeai/openinference-core");
  const manager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(manager);
  const provider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(new NoopSpanExporter())] });
  trace.setGlobalTracerProvider(provider);
  const traced = traceTool((args) => toolFn(args), { name: TOOL_NAME });
  // The globals go with it: pairs measured later run in the setting they set up themselves.
  const close = async () => {
    await provider.shutdown();
    context.disable();
    trace.disable();
  };
  return { call: traced, close };
}

/** OpenAI Agents: a function span inside a trace, batch processor into a no-op exporter. */
async function agentsCore() {
  process.env.OPENAI_AGENTS_DISABLE_TRACING = "0";
  const agents = await import("@openai/agents-core");
  const exporter = { export: async () => {} };
  const processor = new agents.BatchTraceProcessor(exporter, { scheduleDelay: 200 });
  agents.setTraceProcessors([processor]);
  agents.setTracingDisabled(false);
  const call = (args) =>
    agents.withTrace("bench", () =>
      agents.withFunctionSpan(
        async (span) => {
          const out = await toolFn(args);
          span.spanData.output = JSON.stringify(out.result);
          return out;
        },
        { data: { name: TOOL_NAME, input: JSON.stringify(args) } },
      ),
    );
  return { call, close: () => processor.shutdown() };
}

export const peerFactories = {
  rawOtel: async () => {
    const raw = createRawOtelTool();
    return { call: raw.call, close: raw.shutdown };
  },
  openinference,
  agentsCore,
  relaytraceOpeninference: async (api) => relaytraceVariants.otel("openinference")(api),
  relaytraceNone: async (api) => relaytraceVariants.none(api),
};
