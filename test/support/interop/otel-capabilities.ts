import { InMemorySpanExporter } from "@opentelemetry/sdk-trace-base";
import { OtelExporter, type OtelExporterOptions } from "relaytrace/exporters";

/**
 * Which OTLP forms this build of `OtelExporter` can send. The exporter rejects an unknown
 * option with a TypeError at construction, so asking it is exact: the protobuf, logs and
 * metrics checks run as soon as those options exist, and are reported as skipped until then.
 */
export interface OtelCapabilities {
  protobuf: boolean;
  json: boolean;
  logs: boolean;
  metrics: boolean;
}

function accepts(extra: Record<string, unknown>): boolean {
  try {
    const exporter = new OtelExporter({ projection: "full", spanExporter: new InMemorySpanExporter(), ...extra } as OtelExporterOptions);
    void exporter.shutdown();
    return true;
  } catch (error) {
    if (error instanceof TypeError) return false;
    throw error;
  }
}

export function otelCapabilities(): OtelCapabilities {
  const protocol = accepts({ protocol: "http/json" });
  return {
    protobuf: protocol && accepts({ protocol: "http/protobuf" }),
    // Before the `protocol` option existed, JSON was the only form sent.
    json: true,
    logs: accepts({ logs: true }),
    metrics: accepts({ metrics: true }),
  };
}

/** The `protocol` option for a form, or nothing when the exporter has no such option (JSON then). */
export function protocolOption(form: "json" | "protobuf"): Record<string, unknown> {
  if (!accepts({ protocol: "http/json" })) return {};
  return { protocol: form === "json" ? "http/json" : "http/protobuf" };
}
