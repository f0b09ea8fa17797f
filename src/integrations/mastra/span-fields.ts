import type { AnyExportedSpan } from "@mastra/core/observability";
import type { JsonObject } from "../../events/json.js";

/** What the exporter reads off a Mastra span: names, times, metadata and errors. */
/** A time Mastra gave (a Date, ISO text or epoch milliseconds), when it is a real time. */
export function dateOf(value: unknown): Date | undefined {
  const date = value instanceof Date ? value : typeof value === "string" || typeof value === "number" ? new Date(value) : undefined;
  return date && !Number.isNaN(date.getTime()) ? date : undefined;
}

export function stringOf(value: unknown, key: string): string | undefined {
  const v = value !== null && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
  return typeof v === "string" ? v : undefined;
}

/** The name Mastra quoted in a span's name (`tool: 'weather'`), else the entity's name, else the span's. */
export function entityName(span: AnyExportedSpan): string {
  const quoted = /'(.+)'$/.exec(span.name)?.[1];
  if ((span.type as string) === "agent_run") return span.entityName ?? quoted ?? span.name;
  return quoted ?? span.entityName ?? span.name;
}

export function baseMetadata(span: AnyExportedSpan): JsonObject {
  const metadata: JsonObject = { "mastra.span_type": span.type as string, "mastra.trace_id": span.traceId, "mastra.span_id": span.id };
  const runId = stringOf(span.metadata, "runId");
  if (runId !== undefined) metadata["mastra.run_id"] = runId;
  return metadata;
}

/** What Mastra learned by a scope's end: a workflow's status, a scorer's result. */
export function endMetadata(span: AnyExportedSpan): JsonObject | undefined {
  const status = stringOf(span.attributes, "status");
  return status !== undefined ? { "mastra.status": status } : undefined;
}

export function errorOf(info: { message: string; name?: string }): Error {
  const error = new Error(info.message);
  if (info.name) error.name = info.name;
  return error;
}
