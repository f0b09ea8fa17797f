// The agent-loop peer pair: relaytrace's loop traced with ATOF file + OTel openinference against
// ai 7's generateText traced by its OpenTelemetry integration (`@ai-sdk/otel`), on the same
// 5-turn conversation (one tool call a turn, ~2 KB of text and a ~2 KB tool result added to the
// context each turn) and the same kind of loopback provider. Each side's cost is its ADDED CPU per
// run: (traced − untraced) / runs, both including the end-of-block flush, so the model round trips,
// parsing and tool work that both loops do anyway cancel out. Four blocks, interleaved.
//
// Both sides export to a no-op span exporter through a batch processor with the same delay, so
// what is compared is the tracing itself, not a transport. The pair runs with an OTel context
// manager registered, as in an app that traces with OpenTelemetry: ai 7's spans nest through it,
// and relaytrace makes its spans the active ones inside callbacks (without one it skips that).
import { makeLoopSetup, startProvider } from "./loop.mjs";
import { CONVERSATION_TOOL } from "./conversation.mjs";
import { NoopSpanExporter } from "../lib/workload.mjs";

const TURNS = 5;
const PROMPT = "Plan the trip, one city note at a time.";

/** Loads ai 7 with its OTel integration; undefined (with the reason) when bench's peers are missing. */
export async function loadAi7() {
  try {
    const ai = await import("ai");
    if (typeof ai.registerTelemetry !== "function") return { missing: "ai 7 not installed in bench (cd bench && npm install)" };
    const otel = await import("@ai-sdk/otel");
    const compatible = await import("openai-compatible7");
    const traceBase = await import("@opentelemetry/sdk-trace-base");
    const contextManagers = await import("@opentelemetry/context-async-hooks");
    const api = await import("@opentelemetry/api");
    return { ai, otel, compatible, traceBase, contextManagers, api };
  } catch (error) {
    return { missing: `@ai-sdk/otel (ai 7's OpenTelemetry integration) not installed (cd bench && npm install): ${error.message}` };
  }
}

/**
 * One ai 7 side: generateText with the conversation tool, telemetry on (through a tracer provider
 * of its own, batch processor → no-op exporter) or explicitly off.
 */
function ai7Side(peers, url, traced, provider) {
  const { ai, compatible } = peers;
  const model = compatible.createOpenAICompatible({ name: "bench", baseURL: url, apiKey: "sk-bench" }).chatModel("stub");
  const tools = {
    [CONVERSATION_TOOL.name]: ai.tool({
      description: CONVERSATION_TOOL.description,
      inputSchema: ai.jsonSchema(CONVERSATION_TOOL.inputSchema),
      execute: async (args) => CONVERSATION_TOOL.execute(args).result,
    }),
  };
  return {
    run: async () => {
      const result = await ai.generateText({
        model,
        prompt: PROMPT,
        tools,
        stopWhen: ai.stepCountIs(TURNS + 5),
        telemetry: { isEnabled: traced },
      });
      if (result.steps.length !== TURNS + 1) throw new Error(`ai 7 run took ${result.steps.length} steps, expected ${TURNS + 1}`);
    },
    flush: () => (traced ? provider.forceFlush() : undefined),
  };
}

/** Measures the pair; `measureBlocks` and the ratio helpers come from the targets suite. */
export async function measureAi7Pair(t, cfg, { measureBlocks, perRoundRatios, summarizeRatios }) {
  const peers = await loadAi7();
  if (peers.missing) return { limit: t.limit, notMeasured: peers.missing };
  const { BasicTracerProvider, BatchSpanProcessor } = peers.traceBase;
  const exporter = new NoopSpanExporter();
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: 200, maxQueueSize: 131_072, maxExportBatchSize: 512 })],
  });
  peers.ai.registerTelemetry(new peers.otel.OpenTelemetry({ tracer: tracerProvider.getTracer("bench-ai7") }));
  peers.api.context.setGlobalContextManager(new peers.contextManagers.AsyncLocalStorageContextManager().enable());
  const provider = await startProvider({
    delayMs: 1,
    toolTurns: TURNS,
    toolsPerTurn: 1,
    tools: [CONVERSATION_TOOL.name],
    assistantTextBytes: 2_000,
  });
  const runs = cfg.runs ?? cfg.runs5;
  const setups = {};
  const block = (name, make) => ({
    name,
    setup: async () => void (setups[name] = await make()),
    run: async () => {
      for (let i = 0; i < runs; i++) await setups[name].run();
      return runs;
    },
    flush: () => setups[name].flush?.(),
    teardown: () => setups[name].close?.(),
  });
  const relaytraceSide = (exporters) => async () => {
    const setup = await makeLoopSetup(cfg.api, provider.url, exporters, { tools: [CONVERSATION_TOOL], maxTurns: TURNS + 5 });
    return {
      run: async () => {
        const result = await setup.run(PROMPT);
        if (result.status !== "done") throw new Error(`relaytrace run ended ${result.status}`);
      },
      flush: () => setup.runtime.flush(),
      close: () => setup.close(),
    };
  };
  try {
    const s = await measureBlocks(
      [
        block("relaytraceOn", relaytraceSide(["atof", "openinference"])),
        block("relaytraceOff", relaytraceSide([])),
        block("ai7On", async () => ai7Side(peers, provider.url, true, tracerProvider)),
        block("ai7Off", async () => ai7Side(peers, provider.url, false, tracerProvider)),
      ],
      { rounds: cfg.rounds, metric: "cpu", warmup: 1 },
    );
    const added = (side) => s[`${side}On`].map((on, i) => on - s[`${side}Off`][i]);
    // ai 7 makes a span for the run, each step, each model call and each tool call: none may be lost.
    if (exporter.exported === 0) return { limit: t.limit, invalid: "ai 7 exported no spans" };
    return { ...summarizeRatios(perRoundRatios(added("relaytrace"), added("ai7")), t.limit, cfg.rounds), samples: s };
  } finally {
    await provider.close();
    await tracerProvider.shutdown();
    peers.api.context.disable();
  }
}
