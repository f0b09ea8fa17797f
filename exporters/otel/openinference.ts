import { PROFILE_TOOL_CALL_ID } from "../../src/events/wire-names.js";
import { SpanKind, type Attributes } from "@opentelemetry/api";
import { MimeType, OpenInferenceSpanKind, SemanticConventions as SC } from "./openinference-conventions.js";
import { isJsonObject, type Json } from "../../src/events/json.js";
import type { Category, MarkEvent, ScopeEvent } from "../../src/events/types.js";
import { displayText } from "./display-text.js";
import { AttributePrefix, LastJsonText, flattenUnder, jsonText } from "./flatten.js";
import { clientOrInternal } from "./full.js";
import { writeLlmEnd, writeLlmStart } from "./openinference-llm.js";
import { toolOutputOf } from "./tool-output.js";
import type { OpenSpan } from "./open-span.js";
import type { MarkSpanMode, Projection } from "./projection.js";
import { writeOpenInferenceTotal } from "./llm-totals.js";
import { ScopeKeys, profileString, scopeTypeOf, writeAnnotation, writeEndData, writeIdentity, writeStartData } from "./scope-attributes.js";

const KIND_BY_TYPE: Record<string, OpenInferenceSpanKind> = {
  agent: OpenInferenceSpanKind.AGENT,
  tool: OpenInferenceSpanKind.TOOL,
  llm: OpenInferenceSpanKind.LLM,
  retriever: OpenInferenceSpanKind.RETRIEVER,
  embedder: OpenInferenceSpanKind.EMBEDDING,
  reranker: OpenInferenceSpanKind.RERANKER,
  guardrail: OpenInferenceSpanKind.GUARDRAIL,
  evaluator: OpenInferenceSpanKind.EVALUATOR,
};

/** `openinference.span.kind` of a category; anything unlisted is a CHAIN. */
export function openInferenceKindOf(category: string): OpenInferenceSpanKind {
  return kindOfType(scopeTypeOf(category));
}

function kindOfType(type: Category): OpenInferenceSpanKind {
  return KIND_BY_TYPE[type] ?? OpenInferenceSpanKind.CHAIN;
}

const METADATA_PREFIX = new AttributePrefix("openinference.metadata");

function writeMetadata(attrs: Attributes, metadata: Json, texts: LastJsonText): void {
  if (metadata === null || metadata === undefined) return;
  attrs[SC.METADATA] = texts.of(metadata);
  flattenUnder(attrs, METADATA_PREFIX, metadata);
}

/**
 * The span's metadata as a whole: the start's (the context's entries, the caller's own) with the
 * end's on top, where a key of both takes the end's value as the flattened `metadata.*` keys do.
 * Metadata that is not an object is the caller's own shape: the end's then stands alone.
 */
function spanMetadata(start: Json | undefined, end: Json | undefined): Json | undefined {
  if (!isJsonObject(start) || Object.keys(start).length === 0) return end;
  if (end === null || end === undefined) return start;
  return isJsonObject(end) ? { ...start, ...end } : end;
}

/** `openinference`: the OpenInference conventions Phoenix/Arize read, plus `<ns>` identity keys. */
export class OpenInferenceProjection implements Projection {
  readonly name = "openinference" as const;
  readonly rendersMarks = true;
  readonly writesErrorType = false;
  readonly writesSessionIdentity = true;

  private readonly keys: ScopeKeys;
  private readonly startMetadataText = new LastJsonText();
  private readonly endMetadataText = new LastJsonText();

  constructor(ns: string) {
    this.keys = new ScopeKeys(ns);
  }

  spanName(start: ScopeEvent): string {
    return start.name;
  }

  spanKind(_start: ScopeEvent, type: Category): SpanKind {
    return clientOrInternal(type);
  }

  onStart(start: ScopeEvent, span: OpenSpan): void {
    const attrs = span.attributes;
    const type = span.scopeType;
    attrs[SC.OPENINFERENCE_SPAN_KIND] = kindOfType(type);
    writeIdentity(attrs, this.keys, start, type);
    const toolCallId = profileString(start, PROFILE_TOOL_CALL_ID);
    if (toolCallId) attrs[SC.TOOL_CALL_ID] = toolCallId;
    if (type === "llm") {
      writeLlmStart(attrs, start);
      return;
    }
    writeMetadata(attrs, start.metadata, this.startMetadataText);
    writeStartData(attrs, this.keys, start);
    if (start.data !== null && start.data !== undefined) {
      const input = jsonText(start.data);
      attrs[SC.INPUT_VALUE] = input;
      attrs[SC.INPUT_MIME_TYPE] = MimeType.JSON;
      if (type === "tool") {
        attrs[SC.TOOL_PARAMETERS] = input;
        attrs[SC.TOOL_CALL_FUNCTION_ARGUMENTS_JSON] = input;
      }
    }
    if (type === "tool") {
      attrs[SC.TOOL_NAME] = start.name;
      attrs[SC.TOOL_CALL_FUNCTION_NAME] = start.name;
    }
  }

  onEnd(end: ScopeEvent, span: OpenSpan, succeeded: boolean): void {
    const attrs = span.attributes;
    const type = span.scopeType;
    writeEndData(attrs, this.keys, end);
    // The end's keys flattened; the JSON text Phoenix shows holds the start's too.
    flattenUnder(attrs, METADATA_PREFIX, end.metadata);
    const metadata = spanMetadata(span.start.metadata, end.metadata);
    if (metadata !== null && metadata !== undefined) attrs[SC.METADATA] = this.endMetadataText.of(metadata);
    writeAnnotation(attrs, this.keys, end, succeeded);
    const output = type === "tool" ? toolOutputOf(end.data) : undefined;
    if (output !== undefined) {
      attrs[SC.OUTPUT_VALUE] = output.text;
      attrs[SC.OUTPUT_MIME_TYPE] = output.json ? MimeType.JSON : MimeType.TEXT;
    } else if (end.data !== null && end.data !== undefined) {
      const text = displayText(end.data);
      attrs[SC.OUTPUT_VALUE] = text ?? jsonText(end.data);
      attrs[SC.OUTPUT_MIME_TYPE] = text !== undefined ? MimeType.TEXT : MimeType.JSON;
    }
    if (type === "llm") writeLlmEnd(attrs, end);
    else writeOpenInferenceTotal(attrs, end, span.parentSpan === undefined);
  }

  decorateMarkSpan(mark: MarkEvent, attrs: Attributes, mode: MarkSpanMode): void {
    if (mode === "orphan") {
      attrs[SC.OPENINFERENCE_SPAN_KIND] = OpenInferenceSpanKind.CHAIN;
      return;
    }
    attrs[SC.OPENINFERENCE_SPAN_KIND] = OpenInferenceSpanKind.TOOL;
    attrs[SC.TOOL_NAME] = mark.name;
    attrs[SC.TOOL_CALL_FUNCTION_NAME] = mark.name;
    attrs[SC.OUTPUT_VALUE] = jsonText(mark.data ?? null);
    attrs[SC.OUTPUT_MIME_TYPE] = MimeType.JSON;
    if (isJsonObject(mark.metadata)) attrs[SC.METADATA] = jsonText(mark.metadata);
  }
}
