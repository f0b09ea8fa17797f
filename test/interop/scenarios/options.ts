// What the interop scenarios are told on the command line: where to send, in which form.
import type { OtelExporterOptions } from "relaytrace/exporters";
import { ProtobufSpanExporter } from "../../support/interop/protobuf-span-exporter.js";

export interface ScenarioOptions {
  /** OTLP/HTTP base URL (`/v1/traces` is appended) or undefined for no OTel export. */
  otlp?: string;
  projection: OtelExporterOptions["projection"];
  serviceName: string;
  /** Where ATOF and ATIF files go. */
  outDir: string;
  /**
   * Extra `OtelExporter` options (`protocol`, `logs`, `metrics`), passed as they are: the
   * suite only asks for those the installed exporter accepts.
   */
  otel?: Record<string, unknown>;
  /**
   * Send OTLP/HTTP protobuf through a test span exporter (OpenTelemetry's protobuf
   * serializer), for a receiver that takes nothing else, while the installed `OtelExporter`
   * has no `protocol` option.
   */
  protobufSpanExporter?: boolean;
}

export function parseScenarioOptions(text: string | undefined): ScenarioOptions {
  if (!text) throw new Error("usage: <scenario> '<json options>'");
  return JSON.parse(text) as ScenarioOptions;
}

/** The OtelExporter options of one scenario process, or undefined when it sends nothing. */
export function otelOptions(options: ScenarioOptions): OtelExporterOptions | undefined {
  if (!options.otlp) return undefined;
  if (options.protobufSpanExporter) {
    return { projection: options.projection, serviceName: options.serviceName, scheduledDelayMillis: 200, spanExporter: new ProtobufSpanExporter(`${options.otlp}/v1/traces`) };
  }
  return {
    projection: options.projection,
    endpoint: `${options.otlp}/v1/traces`,
    serviceName: options.serviceName,
    scheduledDelayMillis: 200,
    ...options.otel,
  } as OtelExporterOptions;
}
