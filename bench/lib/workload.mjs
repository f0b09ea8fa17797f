// The work every variant does: one trivial tool call, and the span exporters used by the OTel variants.
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";

export const TOOL_NAME = "lookup_weather";
export const TOOL_ARGS = Object.freeze({ city: "Paris", units: "metric", days: 3 });
const RESULT = Object.freeze({ result: Object.freeze({ temperature: 21, unit: "C", summary: "sunny" }) });

/** The trivial tool body: async like a real tool, no I/O. */
export const toolFn = async (args) => (args ? RESULT : RESULT);

/** Accepts every batch at once: the OTel pipeline runs fully, nothing leaves the process. */
export class NoopSpanExporter {
  exported = 0;
  export(spans, done) {
    this.exported += spans.length;
    done({ code: 0 });
  }
  shutdown() {
    return Promise.resolve();
  }
  forceFlush() {
    return Promise.resolve();
  }
}

/** A collector that never answers: `export` never calls back (the BatchSpanProcessor times it out). */
export class StalledSpanExporter {
  calls = 0;
  export() {
    this.calls += 1;
  }
  shutdown() {
    return Promise.resolve();
  }
  forceFlush() {
    return Promise.resolve();
  }
}

/**
 * The reference point: a raw @opentelemetry/sdk-trace-base span with the same 7 attributes an
 * OpenInference tool span carries, through a BatchSpanProcessor into a no-op exporter.
 */
export function createRawOtelTool() {
  const exporter = new NoopSpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter)] });
  const tracer = provider.getTracer("bench-raw");
  const call = async (args) => {
    const span = tracer.startSpan(TOOL_NAME, {
      attributes: {
        "openinference.span.kind": "TOOL",
        "tool.name": TOOL_NAME,
        "tool_call.id": "call_1",
        "input.value": JSON.stringify(args),
        "input.mime_type": "application/json",
      },
    });
    const out = await toolFn(args);
    span.setAttribute("output.value", JSON.stringify(out.result));
    span.setAttribute("output.mime_type", "application/json");
    span.end();
    return out;
  };
  return { call, provider, exporter, shutdown: () => provider.shutdown() };
}

const yieldToIo = () => new Promise((resolve) => setImmediate(resolve));

/**
 * Runs `call` n times, sequentially, as an app awaiting each tool would. Every 1,000 calls it
 * yields to the event loop once (real tools do I/O); a loop of only microtasks would starve
 * exporter I/O and make the ATOF buffer drop events, which would flatter its numbers.
 */
export async function loop(n, call) {
  for (let i = 0; i < n; i++) {
    await call(TOOL_ARGS);
    if ((i & 1023) === 1023) await yieldToIo();
  }
}
