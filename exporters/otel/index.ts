export { OtelExporter, DEFAULT_NAMESPACE, UNENDED_SPAN_DESCRIPTION } from "./otel-exporter.js";
export type { OtelExporterOptions, SubscribableRuntime } from "./otel-exporter.js";
export type { ProjectionName } from "./projection.js";
export type { MarkProjectionSetting } from "./marks.js";
export type { Diagnostic as OtelDiagnostic } from "../../src/wire/diagnostics.js";
export { flattenInto } from "./flatten.js";
export type { AttributeMapping } from "./attribute-controls.js";
export type { TraceSampler } from "./sampling.js";
export type { GenAiConventions } from "./env.js";
