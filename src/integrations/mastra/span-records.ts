import type { AnyExportedSpan } from "@mastra/core/observability";
import type { Category } from "../../events/types.js";
import type { Runtime } from "../../runtime/runtime.js";
import { toolOutputText } from "../chat-completions-body.js";
import { closeDetached, openDetached } from "../detached-scopes.js";
import { jsonOf } from "./model-call.js";
import { baseMetadata, dateOf, endMetadata, entityName, stringOf } from "./span-fields.js";
import type { TrackedSpan } from "./tracked-span.js";

// What each kind of Mastra span becomes in relaytrace: the scope or tool call it opens, and how it
// ends. The exporter decides when (its span bookkeeping and the per-step order); these say what.

/** The tool calls Mastra traces: each becomes a relaytrace `tool` scope. */
export const TOOL_TYPES: ReadonlySet<string> = new Set(["tool_call", "mcp_tool_call", "client_tool_call", "provider_tool_call"]);

/** Span types that become scopes of a category other than `function`. */
const CATEGORIES: Readonly<Record<string, Category>> = {
  agent_run: "agent",
  scorer_run: "evaluator",
  classifier_evaluation: "evaluator",
  rag_embedding: "embedder",
  rag_vector_operation: "retriever",
};

const isModelScope = (type: string): boolean => type === "model_generation" || type === "model_step";

/** Opens the scope of a span that is neither a tool call nor a provider call; sets `tracked.scope` and `uuid`. */
export function openSpanScope(runtime: Runtime, tracked: TrackedSpan): void {
  const { span } = tracked;
  const type = span.type as string;
  const category = CATEGORIES[type] ?? "function";
  const metadata = baseMetadata(span);
  if (category === "agent") {
    const session = stringOf(span.attributes, "conversationId") ?? stringOf(span.metadata, "threadId");
    metadata["session_id"] = session ?? span.traceId;
  }
  if (isModelScope(type)) {
    const model = stringOf(span.attributes, "model");
    const provider = stringOf(span.attributes, "provider");
    if (model !== undefined) metadata["mastra.model"] = model;
    if (provider !== undefined) metadata["mastra.provider"] = provider;
  }
  const input = isModelScope(type) || span.input === undefined ? undefined : jsonOf(span.input);
  const scope = openDetached(runtime, category === "agent" ? entityName(span) : span.name, {
    category,
    parentUuid: tracked.parentUuid,
    ...(dateOf(span.startTime) ? { timestamp: dateOf(span.startTime)! } : {}),
    ...(input !== undefined ? { input } : {}),
    metadata,
  });
  tracked.scope = scope;
  tracked.uuid = scope.handle.uuid;
}

/** Ends a span's scope with Mastra's end (its output, end metadata and error). */
export function closeSpanScope(
  runtime: Runtime,
  tracked: TrackedSpan,
  span: AnyExportedSpan,
  timestamp: Date,
  error: Error | undefined,
): void {
  const output = span.output !== undefined && (span.type as string) !== "model_generation" ? jsonOf(span.output) : undefined;
  const metadata = endMetadata(span);
  closeDetached(runtime, tracked.scope!, {
    timestamp,
    ...(output !== undefined ? { output } : {}),
    ...(metadata ? { metadata } : {}),
    ...(error ? { error } : {}),
  });
}

/** Starts a tool call's relaytrace tool call; sets `tracked.tool` and `uuid`. */
export function startSpanTool(runtime: Runtime, tracked: TrackedSpan): void {
  const { span } = tracked;
  const callId = stringOf(span.attributes, "toolCallId");
  const handle = runtime.startTool(entityName(span), jsonOf(span.input), {
    parent: { uuid: tracked.parentUuid },
    metadata: baseMetadata(span),
    ...(dateOf(span.startTime) ? { timestamp: dateOf(span.startTime)! } : {}),
    ...(callId !== undefined ? { toolCallId: callId } : {}),
  });
  tracked.tool = handle;
  tracked.uuid = handle.uuid;
}

/** Ends a tool call: with the error, or with the output Mastra recorded (`end`'s). */
export function endSpanTool(runtime: Runtime, tracked: TrackedSpan, end: AnyExportedSpan, timestamp: Date, error: Error | undefined): void {
  if (error) runtime.endTool(tracked.tool!, { error }, { timestamp, data: error.message });
  else runtime.endTool(tracked.tool!, { result: jsonOf(end.output) }, { timestamp, metadata: { "otel.status_code": "OK" } });
}

/** A tool call's result, as the `tool` message the next provider call of its generation sends. */
export function queueToolResult(tracked: TrackedSpan, end: AnyExportedSpan, error: Error | undefined): void {
  const callId = stringOf(end.attributes, "toolCallId");
  if (!tracked.generation || callId === undefined) return;
  tracked.generation.pendingResults.push({
    role: "tool",
    toolCallId: callId,
    text: error ? error.message : toolOutputText(end.output ?? null),
  });
}

/** A point-in-time Mastra span (an agent signal, say): a mark under `parentUuid`. */
export function recordSpanMark(runtime: Runtime, span: AnyExportedSpan, parentUuid: string): void {
  runtime.mark(span.name, {
    parent: { uuid: parentUuid },
    ...(dateOf(span.startTime) ? { timestamp: dateOf(span.startTime)! } : {}),
    data: jsonOf(span.output ?? span.input ?? span.attributes),
    metadata: baseMetadata(span),
  });
}
