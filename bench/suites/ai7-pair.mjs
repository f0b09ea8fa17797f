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
// The growth pair (growth-pair.mjs) runs the same sides on a 5-turn and a 50-turn conversation.
import { makeLoopSetup, startProvider } from "./loop.mjs";
import { CONVERSATION_TOOL } from "./conversation.mjs";
import { NoopSpanExporter } from "../lib/workload.mjs";

const TURNS = 5;
const PROMPT = "Plan the trip, one city note at a time.";
/** What relaytrace's traced side registers: an ATOF file and the OTel openinference projection. */
export const RELAYTRACE_EXPORTERS = ["atof", "openinference"];

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
 * ai 7's OpenTelemetry integration over a tracer provider of its own (batch processor → `exporter`,
 * relaytrace's batch settings), and the AsyncLocalStorage context manager registered globally for
 * both sides. The integration is passed per call (`telemetry.integrations`, which ai 7 prefers to
 * its global registry): `registerTelemetry` only ever adds, and two pairs in one process would
 * otherwise trace every call twice. `close()` flushes, shuts down and removes the context manager.
 */
export function ai7Telemetry(peers, exporter = new NoopSpanExporter()) {
  const { BasicTracerProvider, BatchSpanProcessor } = peers.traceBase;
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: 200, maxQueueSize: 131_072, maxExportBatchSize: 512 })],
  });
  const integration = new peers.otel.OpenTelemetry({ tracer: tracerProvider.getTracer("bench-ai7") });
  peers.api.context.setGlobalContextManager(new peers.contextManagers.AsyncLocalStorageContextManager().enable());
  return {
    integration,
    tracerProvider,
    exporter,
    close: async () => {
      await tracerProvider.shutdown();
      peers.api.context.disable();
    },
  };
}

/**
 * One ai 7 side: generateText with the conversation tool on a `turns`-turn conversation, traced
 * through `telemetry` (from ai7Telemetry; inputs and outputs recorded, its default) or, without
 * it, telemetry explicitly off.
 */
export function ai7Side(peers, url, telemetry, turns = TURNS) {
  const { ai, compatible } = peers;
  const model = compatible.createOpenAICompatible({ name: "bench", baseURL: url, apiKey: "sk-bench" }).chatModel("stub");
  const tools = {
    [CONVERSATION_TOOL.name]: ai.tool({
      description: CONVERSATION_TOOL.description,
      inputSchema: ai.jsonSchema(CONVERSATION_TOOL.inputSchema),
      execute: async (args) => CONVERSATION_TOOL.execute(args).result,
    }),
  };
  const settings = telemetry ? { isEnabled: true, integrations: telemetry.integration } : { isEnabled: false };
  return {
    run: async () => {
      const result = await ai.generateText({ model, prompt: PROMPT, tools, stopWhen: ai.stepCountIs(turns + 5), telemetry: settings });
      if (result.steps.length !== turns + 1) throw new Error(`ai 7 run took ${result.steps.length} steps, expected ${turns + 1}`);
    },
    flush: () => telemetry?.tracerProvider.forceFlush(),
  };
}

/** One relaytrace side: its loop on a `turns`-turn conversation with `exporters` (none: untraced). */
export async function relaytraceSide(api, url, exporters, turns = TURNS, options = {}) {
  const setup = await makeLoopSetup(api, url, exporters, { tools: [CONVERSATION_TOOL], maxTurns: turns + 5, ...options });
  return {
    run: async () => {
      const result = await setup.run(PROMPT);
      if (result.status !== "done") throw new Error(`relaytrace run ended ${result.status}`);
    },
    flush: () => setup.runtime.flush(),
    close: () => setup.close(),
  };
}

/** A block of `runs` runs of the side `make()` builds at set-up; its samples are CPU per run. */
export function runsBlock(name, runs, make) {
  let side;
  return {
    name,
    setup: async () => void (side = await make()),
    run: async (warm) => {
      for (let i = 0; i < runs; i++) await side.run(warm);
      return runs;
    },
    flush: () => side.flush?.(),
    teardown: () => side.close?.(),
  };
}

/**
 * Measures the pair; `measureBlocks` and the ratio helpers come from the targets suite, `more`
 * (optional) is the extra-rounds rule, given the ratios read so far.
 */
export async function measureAi7Pair(t, cfg, { measureBlocks, perRoundRatios, summarizeRatios, more }) {
  const peers = await loadAi7();
  if (peers.missing) return { limit: t.limit, notMeasured: peers.missing };
  const telemetry = ai7Telemetry(peers);
  const provider = await startProvider({
    delayMs: 1,
    toolTurns: TURNS,
    toolsPerTurn: 1,
    tools: [CONVERSATION_TOOL.name],
    assistantTextBytes: 2_000,
  });
  const runs = cfg.runs ?? cfg.runs5;
  const ratiosOf = (s) => {
    const added = (side) => s[`${side}On`].map((on, i) => on - s[`${side}Off`][i]);
    return perRoundRatios(added("relaytrace"), added("ai7"));
  };
  try {
    const s = await measureBlocks(
      [
        runsBlock("relaytraceOn", runs, () => relaytraceSide(cfg.api, provider.url, RELAYTRACE_EXPORTERS)),
        runsBlock("relaytraceOff", runs, () => relaytraceSide(cfg.api, provider.url, [])),
        runsBlock("ai7On", runs, async () => ai7Side(peers, provider.url, telemetry)),
        runsBlock("ai7Off", runs, async () => ai7Side(peers, provider.url, undefined)),
      ],
      { rounds: cfg.rounds, metric: "cpu", warmup: 1, more: more && ((samples, n, seconds) => more(ratiosOf(samples), n, seconds)) },
    );
    // ai 7 makes a span for the run, each step, each model call and each tool call: none may be lost.
    if (telemetry.exporter.exported === 0) return { limit: t.limit, invalid: "ai 7 exported no spans" };
    return { ...summarizeRatios(ratiosOf(s), t.limit, s.relaytraceOn.length), samples: s };
  } finally {
    await provider.close();
    await telemetry.close();
  }
}
