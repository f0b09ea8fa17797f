// relaytrace/exporters — subscribers that project the event stream to files and spans.

export { AtofExporter } from "./atof/index.js";
export type {
  AtofExporterOptions,
  AtofFileOptions,
  AtofStreamOptions,
  AtofBufferOptions,
  AtofRotateOptions,
  ExporterDiagnostic,
} from "./atof/index.js";

export { AtifExporter, atofToAtif, validateAtif, assertValidAtif, AtifValidationError, ATIF_SCHEMA, RESUME_OF_KEY } from "./atif/index.js";
export type {
  AtifExporterOptions,
  AtifValidationResult,
  AtifViolation,
  AtifTrajectory,
  AtifStep,
  AtifAgent,
  AtifAgentInfo,
  AtifToolCall,
  AtifObservation,
  AtifObservationResult,
  AtifMetrics,
  AtifFinalMetrics,
  AtifContentPart,
  AtofToAtifOptions,
} from "./atif/index.js";

export { OtelExporter, DEFAULT_NAMESPACE } from "./otel/index.js";
export type {
  OtelExporterOptions,
  ProjectionName,
  MarkProjectionSetting,
  AttributeMapping,
  TraceSampler,
  GenAiConventions,
} from "./otel/index.js";
export type { ExporterRuntime } from "./exporter-runtime.js";
export type { Exporter, ExporterHost } from "../src/runtime/exporter.js";
