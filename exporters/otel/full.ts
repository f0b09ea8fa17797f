import { PROFILE_MODEL_NAME, PROFILE_TOOL_CALL_ID } from "../../src/events/wire-names.js";
import { SpanKind, type Attributes } from "@opentelemetry/api";
import { isJsonObject } from "../../src/events/json.js";
import type { Category, MarkEvent, ScopeEvent } from "../../src/events/types.js";
import { AttributePrefix, attributeKey, flattenUnder } from "./flatten.js";
import { writeLlmCost } from "./llm-body.js";
import { writeFullTotals } from "./llm-totals.js";
import type { OpenSpan } from "./open-span.js";
import type { MarkSpanMode, Projection } from "./projection.js";
import { ScopeKeys, profileString, writeAnnotation, writeEndData, writeIdentity, writeStartData } from "./scope-attributes.js";

const CLIENT_TYPES = new Set(["llm", "tool", "retriever", "embedder", "reranker"]);

/** SpanKind for full and openinference, by scope type. */
export function clientOrInternal(type: Category): SpanKind {
  return CLIENT_TYPES.has(type) ? SpanKind.CLIENT : SpanKind.INTERNAL;
}

/** The response model of a raw provider body, if it names one. */
export function responseModelOf(data: unknown): string | undefined {
  if (!isJsonObject(data)) return undefined;
  const model = data["model"];
  return typeof model === "string" && model !== "" ? model : undefined;
}

/** `full`: every event field, flattened under the private namespace. */
export class FullProjection implements Projection {
  readonly name = "full" as const;
  readonly rendersMarks = true;
  readonly writesErrorType = true;
  readonly writesSessionIdentity = true;

  private readonly keys: ScopeKeys;
  private readonly startMetadata: AttributePrefix;
  private readonly endMetadata: AttributePrefix;
  private readonly toolCallIdKey: string;
  private readonly modelNameKey: string;

  constructor(private readonly ns: string) {
    this.keys = new ScopeKeys(ns);
    this.startMetadata = new AttributePrefix(attributeKey(ns, "start.metadata"));
    this.endMetadata = new AttributePrefix(attributeKey(ns, "end.metadata"));
    this.toolCallIdKey = attributeKey(ns, "tool_call_id");
    this.modelNameKey = attributeKey(ns, "model_name");
  }

  spanName(start: ScopeEvent): string {
    return start.name;
  }

  spanKind(_start: ScopeEvent, type: Category): SpanKind {
    return clientOrInternal(type);
  }

  onStart(start: ScopeEvent, span: OpenSpan): void {
    const attrs = span.attributes;
    writeIdentity(attrs, this.keys, start, span.scopeType);
    if (span.scopeType === "llm") {
      const model = profileString(start, PROFILE_MODEL_NAME);
      if (model) attrs[this.modelNameKey] = model;
    }
    const toolCallId = profileString(start, PROFILE_TOOL_CALL_ID);
    if (toolCallId) attrs[this.toolCallIdKey] = toolCallId;
    writeStartData(attrs, this.keys, start);
    flattenUnder(attrs, this.startMetadata, start.metadata);
  }

  onEnd(end: ScopeEvent, span: OpenSpan, succeeded: boolean): void {
    const attrs = span.attributes;
    writeEndData(attrs, this.keys, end);
    flattenUnder(attrs, this.endMetadata, end.metadata);
    writeAnnotation(attrs, this.keys, end, succeeded);
    if (span.scopeType === "llm") {
      const model = responseModelOf(end.data) ?? profileString(end, PROFILE_MODEL_NAME);
      if (model) attrs[this.modelNameKey] = model;
      writeLlmCost(attrs, this.ns, end);
    } else writeFullTotals(attrs, this.ns, end);
  }

  decorateMarkSpan(_mark: MarkEvent, attrs: Attributes, mode: MarkSpanMode): void {
    if (mode === "tool") attrs[this.keys.scopeType] = "tool";
  }
}
