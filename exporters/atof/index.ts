export { AtofExporter, type AtofSubscribable } from "./atof-exporter.js";
export type { Diagnostic as ExporterDiagnostic } from "../../src/wire/diagnostics.js";
export type { AtofBufferOptions, AtofExporterOptions, AtofFileOptions, AtofStreamOptions } from "./options.js";
export type { AtofRotateOptions } from "./rotation.js";
