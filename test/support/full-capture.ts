import { OtelExporter } from "../../exporters/otel/index.js";
import { RecordingSpanExporter } from "../../exporters/testing/recording-span-exporter.js";
import type { AtofEvent } from "../../src/events/types.js";
import type { Runtime } from "../../src/runtime/runtime.js";

/**
 * Captures a runtime's ATOF events and its `full` projection's finished spans. The returned
 * function shuts the runtime down and gives everything that would leave the process as one text
 * (events, span names, attributes, status and span events, diagnostics), for "never contains" checks.
 */
export function captureFull(runtime: Runtime) {
  const events: AtofEvent[] = [];
  runtime.subscribe("capture", (e) => {
    events.push(e);
  });
  const spans = new RecordingSpanExporter();
  new OtelExporter({ projection: "full", spanExporter: spans }).register(runtime);
  return async () => {
    await runtime.shutdown();
    const spanText = JSON.stringify(
      spans.spans.map((s) => ({ name: s.name, attributes: s.attributes, status: s.status, events: s.events })),
    );
    return { events, spans: spans.spans, text: JSON.stringify(events) + spanText + JSON.stringify(runtime.diagnostics()) };
  };
}
