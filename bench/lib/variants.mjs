// relaytrace set-ups measured in several suites, and the references they are compared with.
// A relaytrace factory returns { runtime, call(args), close() }; `toolEntries` turns names into
// variants for `interleave` (stats.mjs), for one build or for two (bench/ab.mjs).
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { NoopSpanExporter, TOOL_NAME, createRawOtelTool, loop, toolFn } from "./workload.mjs";
import { OTLP_QUEUE, createAtofFloor, createRawFullTool, createRawOtlpTool } from "./references.mjs";

export async function tempDir(prefix = "relaytrace-bench-") {
  return mkdtemp(path.join(os.tmpdir(), prefix));
}

function wrap(rt, extra = {}) {
  return {
    runtime: rt,
    call: (args) => rt.executeTool(TOOL_NAME, args, toolFn, { toolCallId: "call_1" }),
    close: async () => {
      await rt.shutdown();
      if (extra.dir) await rm(extra.dir, { recursive: true, force: true });
    },
    ...extra,
  };
}

/** Adds one pass-through execution intercept and one request sanitizer (redacts a key). */
export function addInterceptAndSanitizer(rt, suffix = "") {
  rt.registerToolExecutionIntercept(`pass${suffix}`, 10, (args, next) => next(args));
  rt.registerToolSanitizeRequest(`redact${suffix}`, 10, (_tool, args) =>
    args && typeof args === "object" && !Array.isArray(args) ? { ...args, city: "[redacted]" } : args,
  );
}

export const relaytraceVariants = {
  none: async (api) => wrap(api.createRuntime()),
  /** Events built, copied and delivered to a subscriber that does nothing: the pipeline every exporter shares. */
  noopSubscriber: async (api) => {
    const rt = api.createRuntime();
    rt.subscribe("noop", () => {});
    return wrap(rt);
  },
  interceptSanitizer: async (api) => {
    const rt = api.createRuntime();
    addInterceptAndSanitizer(rt);
    // A sanitizer only runs when some subscriber will receive the event.
    rt.subscribe("noop", () => {});
    return wrap(rt);
  },
  atofFile: async (api) => {
    const rt = api.createRuntime();
    const dir = await tempDir();
    const exporter = new api.AtofExporter({ type: "file", path: path.join(dir, "events.jsonl"), mode: "overwrite" });
    exporter.register(rt);
    return wrap(rt, { dir, exporter });
  },
  otel: (projection) => async (api) => {
    const rt = api.createRuntime();
    const spanExporter = new NoopSpanExporter();
    const exporter = new api.OtelExporter({ projection, spanExporter, scheduledDelayMillis: 200 });
    exporter.register(rt);
    return wrap(rt, { exporter, spanExporter });
  },
  /**
   * An OTel projection exporting OTLP/HTTP (protobuf by default) to `url` (a loopback receiver)
   * the way an app configures it (`protocol`, `endpoint`): relaytrace's own export path, with the
   * raw OTLP reference's batch settings and a queue large enough that neither side drops.
   */
  otlp:
    (projection, url, protocol = "proto") =>
    async (api) => {
      const rt = api.createRuntime();
      const exporter = new api.OtelExporter({
        projection,
        protocol: protocol === "json" ? "http/json" : "http/protobuf",
        endpoint: url,
        ...OTLP_QUEUE,
      });
      exporter.register(rt);
      return wrap(rt, { exporter });
    },
};

/**
 * The tool-call variants by name, each with the reference its target compares it with.
 * `ctx.receiverUrl` is the loopback OTLP receiver's URL for this build (otlpFull only).
 */
export const TOOL_VARIANTS = {
  none: { label: "relaytrace, no subscriber", reference: "rawOtel", make: (api) => relaytraceVariants.none(api) },
  noopSubscriber: {
    label: "relaytrace, one no-op subscriber (events built and delivered)",
    reference: "rawOtel",
    make: (api) => relaytraceVariants.noopSubscriber(api),
  },
  interceptSanitizer: {
    label: "relaytrace, 1 intercept + 1 sanitizer (+ no-op subscriber)",
    reference: "rawOtel",
    make: (api) => relaytraceVariants.interceptSanitizer(api),
  },
  atofFile: { label: "relaytrace + ATOF file exporter", reference: "atofFloor", make: (api) => relaytraceVariants.atofFile(api) },
  otelFull: { label: "relaytrace + OTel full projection", reference: "rawOtelFull", make: (api) => relaytraceVariants.otel("full")(api) },
  otelOpeninference: {
    label: "relaytrace + OTel openinference projection",
    reference: "rawOtel",
    make: (api) => relaytraceVariants.otel("openinference")(api),
  },
  otelGenAi: { label: "relaytrace + OTel gen_ai projection", reference: "rawOtel", make: (api) => relaytraceVariants.otel("gen_ai")(api) },
  otlpFull: {
    label: "relaytrace + OTel full projection → OTLP/HTTP protobuf (loopback receiver)",
    reference: "rawOtlpFull",
    otlp: true,
    make: (api, ctx) => relaytraceVariants.otlp("full", ctx.receiverUrl)(api),
  },
  otlpJsonFull: {
    label: "relaytrace + OTel full projection → OTLP/HTTP JSON (loopback receiver)",
    reference: "rawOtlpJsonFull",
    otlp: true,
    make: (api, ctx) => relaytraceVariants.otlp("full", ctx.receiverUrl, "json")(api),
  },
};

/** References (no relaytrace): each factory returns { call, flush?, shutdown? }. */
export const REFERENCES = {
  direct: { label: "direct call (no tracing)", make: () => ({ call: toolFn }) },
  rawOtel: {
    label: "raw OTel span, 7 attrs (reference)",
    make: () => {
      const r = createRawOtelTool();
      return { call: r.call, flush: () => r.provider.forceFlush(), shutdown: r.shutdown };
    },
  },
  rawOtelFull: { label: "raw OTel span, the full projection's 19 attrs (reference)", make: () => createRawFullTool() },
  rawOtlpFull: {
    label: "raw OTel span, 19 attrs → OTLP/HTTP protobuf (reference)",
    otlp: true,
    make: (ctx) => createRawOtlpTool(ctx.receiverUrl),
  },
  rawOtlpJsonFull: {
    label: "raw OTel span, 19 attrs → OTLP/HTTP JSON (reference)",
    otlp: true,
    make: (ctx) => createRawOtlpTool(ctx.receiverUrl, "json"),
  },
  atofFloor: { label: "ATOF floor: build + stringify the 2 events, no I/O (reference)", make: () => createAtofFloor() },
};

/** How many calls `interleave` makes of a variant (warm-up included): the spans an OTLP variant must deliver. */
export function callsMade(cfg) {
  return cfg.warmupCalls + cfg.rounds * cfg.calls;
}

/** The drop counters in a runtime's diagnostics (spans or events that never reached their destination). */
export function dropsOf(runtime) {
  if (!runtime) return 0;
  return runtime
    .diagnostics()
    .filter((d) => /dropped|not_exported|export_failed|overflow/.test(d.code))
    .reduce((n, d) => n + d.count, 0);
}

/**
 * `interleave` entries: one per name, built by `make` at setup. Each round ends by flushing, so
 * one variant's delivery and exporter I/O never spill into the next variant's timing.
 */
export function interleaveEntries(named, holders) {
  return named.map(([name, make]) => ({
    name,
    setup: async () => void (holders[name] = await make()),
    run: (n) => loop(n, holders[name].call),
    afterRound: () => holders[name].runtime?.flush() ?? holders[name].flush?.(),
    teardown: () => holders[name].close?.() ?? holders[name].shutdown?.(),
  }));
}
