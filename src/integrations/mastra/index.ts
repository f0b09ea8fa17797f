// relaytrace/mastra — an observability exporter for Mastra (`@mastra/core` 1.x with `@mastra/observability` 1.x).
export { RelaytraceExporter } from "./exporter.js";
export type { RelaytraceExporterOptions } from "./exporter.js";
export type { EvaluationData, MastraTraceScore } from "./scores.js";
