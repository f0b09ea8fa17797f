// What the interop scenarios are told on the command line: where to send, in which form.
import { createRuntime, type Runtime } from "relaytrace";
import { AtifExporter, AtofExporter, OtelExporter, type OtelExporterOptions } from "relaytrace/exporters";

export interface ScenarioOptions {
  /** OTLP/HTTP base URL (`/v1/traces` is appended) or undefined for no OTel export. */
  otlp?: string;
  projection: OtelExporterOptions["projection"];
  serviceName: string;
  /** Where ATOF and ATIF files go. */
  outDir: string;
  /**
   * Extra `OtelExporter` options: the OTLP encoding, and whether marks and metric marks also go
   * out as OTLP logs and metrics.
   */
  otel?: Pick<OtelExporterOptions, "protocol" | "logs" | "metrics">;
}

export function parseScenarioOptions(text: string | undefined): ScenarioOptions {
  if (!text) throw new Error("usage: <scenario> '<json options>'");
  return JSON.parse(text) as ScenarioOptions;
}

/** The OtelExporter options of one scenario process, or undefined when it sends nothing. */
export function otelOptions(options: ScenarioOptions): OtelExporterOptions | undefined {
  if (!options.otlp) return undefined;
  return {
    projection: options.projection,
    endpoint: `${options.otlp}/v1/traces`,
    serviceName: options.serviceName,
    scheduledDelayMillis: 200,
    ...options.otel,
  };
}

/**
 * The runtime of one scenario process with the exporters a user would attach: an ATOF log
 * named `atofFile`, ATIF trajectories, and OTel when `otlp` is set.
 */
export function scenarioRuntime(options: ScenarioOptions, atofFile: string): { runtime: Runtime; atif: AtifExporter } {
  const runtime = createRuntime();
  new AtofExporter({ type: "file", outputDirectory: options.outDir, path: atofFile, mode: "overwrite" }).register(runtime);
  const atif = new AtifExporter({
    outputDirectory: options.outDir,
    agent: { name: "billing-agent", version: "1.0.0", modelName: "interop-model" },
  });
  atif.register(runtime);
  const otel = otelOptions(options);
  if (otel) new OtelExporter(otel).register(runtime);
  return { runtime, atif };
}
