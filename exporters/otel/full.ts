import { PROFILE_MODEL_NAME, PROFILE_TOOL_CALL_ID } from "../../src/events/wire-names.js";
import { SpanKind, type Attributes } from "@opentelemetry/api";
import { isJsonObject } from "../../src/events/json.js";
import type { MarkEvent, ScopeEvent } from "../../src/events/types.js";
import { attributeKey, flattenInto } from "./flatten.js";
import { writeLlmCost } from "./llm-body.js";
import type { OpenSpan } from "./open-span.js";
import type { MarkSpanMode, Projection } from "./projection.js";
import {
  profileString,
  scopeTypeOf,
  writeAnnotation,
  writeEndData,
  writeIdentity,
  writeStartData,
} from "./scope-attributes.js";

const CLIENT_TYPES = new Set(["llm", "tool", "retriever", "embedder", "reranker"]);

/** SpanKind for full and openinference. */
export function clientOrInternal(category: string): SpanKind {
  return CLIENT_TYPES.has(scopeTypeOf(category)) ? SpanKind.CLIENT : SpanKind.INTERNAL;
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

  constructor(private readonly ns: string) {}

  spanName(start: ScopeEvent): string {
    return start.name;
  }

  spanKind(start: ScopeEvent): SpanKind {
    return clientOrInternal(start.category);
  }

  onStart(start: ScopeEvent, span: OpenSpan): void {
    const ns = this.ns;
    const attrs = span.attributes;
    writeIdentity(attrs, ns, start);
    if (scopeTypeOf(start.category) === "llm") {
      const model = profileString(start, PROFILE_MODEL_NAME);
      if (model) attrs[attributeKey(ns, "model_name")] = model;
    }
    const toolCallId = profileString(start, PROFILE_TOOL_CALL_ID);
    if (toolCallId) attrs[attributeKey(ns, "tool_call_id")] = toolCallId;
    writeStartData(attrs, ns, start);
    flattenInto(attrs, attributeKey(ns, "start.metadata"), start.metadata);
  }

  onEnd(end: ScopeEvent, span: OpenSpan, succeeded: boolean): void {
    const ns = this.ns;
    const attrs = span.attributes;
    writeEndData(attrs, ns, end);
    flattenInto(attrs, attributeKey(ns, "end.metadata"), end.metadata);
    writeAnnotation(attrs, ns, end, succeeded);
    if (scopeTypeOf(span.category) === "llm") {
      const model = responseModelOf(end.data) ?? profileString(end, PROFILE_MODEL_NAME);
      if (model) attrs[attributeKey(ns, "model_name")] = model;
      writeLlmCost(attrs, ns, end);
    }
  }

  decorateMarkSpan(_mark: MarkEvent, attrs: Attributes, mode: MarkSpanMode): void {
    if (mode === "tool") attrs[`${this.ns}.scope_type`] = "tool";
  }
}
