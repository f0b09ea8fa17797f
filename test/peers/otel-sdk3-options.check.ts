// Type-checked by test/peers/otel-sdk3-app.test.ts (not run): what an app on OpenTelemetry JS SDK 3
// hands OtelExporter compiles as it is, although its types come from @opentelemetry/api 1.10 and
// relaytrace's from its own, older api copy. `app-otel-api` and `app-otel-sdk-trace` are the app's
// packages (the test maps them to sdk-node's install).
import type { TracerProvider } from "app-otel-api";
import type { AlwaysOffSampler, InMemorySpanExporter, TraceIdRatioBasedSampler } from "app-otel-sdk-trace";
import type { OtelExporterOptions } from "../../exporters/index.js";

declare const appProvider: TracerProvider;
declare const appSpanExporter: InMemorySpanExporter;
declare const ratio: TraceIdRatioBasedSampler;
declare const off: AlwaysOffSampler;

export const joined: OtelExporterOptions = { projection: "gen_ai", tracerProvider: appProvider, sampler: off };
export const exported: OtelExporterOptions = { projection: "openinference", spanExporter: appSpanExporter, sampler: ratio };
