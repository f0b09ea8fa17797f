// relaytrace set-ups measured in several suites. Each returns { call(args), close() }.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { NoopSpanExporter, TOOL_NAME, toolFn } from "./workload.mjs";

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
  /** An OTel projection exporting OTLP/HTTP protobuf to `url` (a loopback receiver). */
  otlp: (projection, url) => async (api) => {
    const { OTLPTraceExporter } = await import("@opentelemetry/exporter-trace-otlp-proto");
    const rt = api.createRuntime();
    const spanExporter = new OTLPTraceExporter({ url });
    const exporter = new api.OtelExporter({ projection, spanExporter, scheduledDelayMillis: 200 });
    exporter.register(rt);
    return wrap(rt, { exporter, spanExporter });
  },
};
