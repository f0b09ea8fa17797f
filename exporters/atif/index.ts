export { AtifExporter } from "./exporter.js";
export type { AtifExporterOptions, AtifExporterDiagnostic, AtifSubscribable } from "./exporter.js";
export { atofToAtif, RESUME_OF_KEY } from "./project.js";
export { validateAtif, assertValidAtif, AtifValidationError } from "./validate.js";
export type { AtifValidationResult, AtifViolation } from "./validate.js";
export { ATIF_SCHEMA } from "./schema.js";
export type {
  AtifAgent,
  AtifAgentInfo,
  AtifContentPart,
  AtifFinalMetrics,
  AtifImageSource,
  AtifMessage,
  AtifMetrics,
  AtifObservation,
  AtifObservationResult,
  AtifSchemaVersion,
  AtifStep,
  AtifSubagentTrajectoryRef,
  AtifToolCall,
  AtifTrajectory,
  AtofToAtifOptions,
} from "./types.js";
