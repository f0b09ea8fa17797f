export { AtofExporter, type AtofSubscribable } from "./atof-exporter.js";
export type { ExporterDiagnostic } from "./diagnostics.js";
export type { AtofBufferOptions, AtofExporterOptions, AtofFileOptions, AtofStreamOptions } from "./options.js";
