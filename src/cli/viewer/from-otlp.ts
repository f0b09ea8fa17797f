import { isJsonObject, type Json, type JsonObject } from "../../events/json.js";
import { idHex } from "../../../exporters/otel/ids.js";
import { modelOf, requestMessages, responseMessages, usageOf } from "./conversation.js";
import type { ViewError, ViewMark, ViewMessage, ViewSpan, ViewStatus } from "./model.js";

/** An OTLP/JSON `ExportTraceServiceRequest` (any producer, any of our projections) as viewer spans. */

const OPENINFERENCE_KINDS: Record<string, string> = {
  LLM: "llm",
  TOOL: "tool",
  AGENT: "agent",
  CHAIN: "function",
  RETRIEVER: "retriever",
  EMBEDDING: "embedder",
  RERANKER: "reranker",
  GUARDRAIL: "guardrail",
  EVALUATOR: "evaluator",
};
const GEN_AI_KINDS: Record<string, string> = {
  chat: "llm",
  text_completion: "llm",
  generate_content: "llm",
  embeddings: "embedder",
  execute_tool: "tool",
  invoke_agent: "agent",
  create_agent: "agent",
};

/** An OTLP `AnyValue` as plain JSON. */
function anyValue(v: unknown): Json {
  if (!isJsonObject(v)) return null;
  if ("stringValue" in v) return typeof v["stringValue"] === "string" ? v["stringValue"] : null;
  if ("boolValue" in v) return v["boolValue"] === true;
  if ("intValue" in v) return Number(v["intValue"]);
  if ("doubleValue" in v) return Number(v["doubleValue"]);
  const array = v["arrayValue"];
  if (isJsonObject(array)) return Array.isArray(array["values"]) ? array["values"].map(anyValue) : [];
  const kv = v["kvlistValue"];
  if (isJsonObject(kv)) return attributesOf(kv["values"]);
  if ("bytesValue" in v) return typeof v["bytesValue"] === "string" ? v["bytesValue"] : null;
  return null;
}

function attributesOf(list: unknown): JsonObject {
  const out: JsonObject = {};
  if (!Array.isArray(list)) return out;
  for (const kv of list) if (isJsonObject(kv) && typeof kv["key"] === "string") out[kv["key"]] = anyValue(kv["value"]);
  return out;
}

function parseMaybeJson(value: Json | undefined): Json {
  if (typeof value !== "string") return value ?? null;
  const t = value.trimStart();
  if (!t.startsWith("{") && !t.startsWith("[")) return value;
  try {
    return JSON.parse(value) as Json;
  } catch {
    return value;
  }
}

/** Undoes the `full` projection's flattening: `<prefix>.<key>` attributes back into one object. */
function unflatten(attrs: JsonObject, prefix: string): Json {
  if (prefix in attrs) return parseMaybeJson(attrs[prefix]);
  const out: JsonObject = {};
  let any = false;
  const head = `${prefix}.`;
  for (const [k, v] of Object.entries(attrs)) {
    if (!k.startsWith(head)) continue;
    out[k.slice(head.length)] = parseMaybeJson(v);
    any = true;
  }
  return any ? out : null;
}

function nanosToMicros(value: unknown): number {
  if (typeof value === "number") return Math.floor(value / 1000);
  if (typeof value === "string" && /^\d+$/.test(value)) return Number(BigInt(value) / 1000n);
  return 0;
}

function hexId(value: unknown): string {
  return typeof value === "string" ? value.toLowerCase() : "";
}

function str(value: Json | undefined): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

function num(value: Json | undefined): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

function statusOf(status: unknown): ViewStatus {
  const code = isJsonObject(status) ? status["code"] : undefined;
  if (code === 1 || code === "STATUS_CODE_OK") return "OK";
  if (code === 2 || code === "STATUS_CODE_ERROR") return "ERROR";
  return "UNSET";
}

/** The private namespace of the `full`/`openinference` projections (`<ns>.scope_type`), if any. */
function namespaceOf(attrs: JsonObject): string | undefined {
  for (const key of Object.keys(attrs)) if (key.endsWith(".scope_type")) return key.slice(0, -".scope_type".length);
  return undefined;
}

/** gen_ai message parts (`gen_ai.input.messages` / `gen_ai.output.messages`). */
function genAiMessages(value: Json | undefined): ViewMessage[] {
  const list = parseMaybeJson(value);
  if (!Array.isArray(list)) return [];
  const out: ViewMessage[] = [];
  for (const m of list) {
    if (!isJsonObject(m)) continue;
    const role = str(m["role"]) ?? "user";
    const texts: string[] = [];
    const calls: NonNullable<ViewMessage["toolCalls"]> = [];
    for (const p of Array.isArray(m["parts"]) ? m["parts"] : []) {
      if (!isJsonObject(p)) continue;
      if (p["type"] === "text") texts.push(str(p["content"]) ?? "");
      else if (p["type"] === "tool_call")
        calls.push({ id: str(p["id"]) ?? "", name: str(p["name"]) ?? "", arguments: JSON.stringify(p["arguments"] ?? null) });
      else if (p["type"] === "tool_call_response")
        out.push({
          role: "tool",
          text: typeof p["response"] === "string" ? p["response"] : JSON.stringify(p["response"] ?? null),
          toolCallId: str(p["id"]) ?? "",
        });
    }
    if (texts.length > 0 || calls.length > 0) out.push({ role, text: texts.join("\n"), ...(calls.length ? { toolCalls: calls } : {}) });
  }
  return out;
}

/** The span's events as marks, and what its `exception` event says. */
function eventsOf(raw: JsonObject, ns: string | undefined): { marks: ViewMark[]; exceptionType?: string; exceptionMessage?: string } {
  const out: { marks: ViewMark[]; exceptionType?: string; exceptionMessage?: string } = { marks: [] };
  for (const e of Array.isArray(raw["events"]) ? raw["events"] : []) {
    if (!isJsonObject(e)) continue;
    const data = attributesOf(e["attributes"]);
    const eventName = str(e["name"] as Json) ?? "event";
    if (eventName === "exception") {
      const type = str(data["exception.type"]);
      const message = str(data["exception.message"]);
      if (type !== undefined) out.exceptionType = type;
      if (message !== undefined) out.exceptionMessage = message;
    }
    const markUuid = ns ? str(data[`${ns}.mark.uuid`]) : undefined;
    out.marks.push({
      id: markUuid ? idHex(markUuid).slice(16) : "",
      name: eventName,
      time: nanosToMicros(e["timeUnixNano"]),
      pending: false,
      category: ns ? (str(data[`${ns}.mark.category`]) ?? null) : null,
      data,
      metadata: null,
    });
  }
  return out;
}

function errorOf(raw: JsonObject, attrs: JsonObject, exception: { exceptionType?: string; exceptionMessage?: string }): ViewError {
  const error: ViewError = {};
  const message = (isJsonObject(raw["status"]) ? str(raw["status"]["message"] as Json) : undefined) ?? exception.exceptionMessage;
  if (message) error.message = message;
  const errorType = str(attrs["error.type"]);
  if (errorType) error.errorType = errorType;
  if (exception.exceptionType) error.exceptionType = exception.exceptionType;
  return error;
}

/** An llm span's model, usage and conversation, from whichever projection wrote it. */
function addLlmDetails(span: ViewSpan, attrs: JsonObject, at: (key: string) => Json | undefined): void {
  const { input, output } = span;
  const model =
    str(at("model_name")) ??
    str(attrs["gen_ai.response.model"]) ??
    str(attrs["gen_ai.request.model"]) ??
    str(attrs["llm.model_name"]) ??
    modelOf(input, output, { name: span.name });
  if (model) span.model = model;
  const promptTokens = num(attrs["gen_ai.usage.input_tokens"]) ?? num(attrs["llm.token_count.prompt"]);
  const completionTokens = num(attrs["gen_ai.usage.output_tokens"]) ?? num(attrs["llm.token_count.completion"]);
  const totalTokens = num(attrs["llm.token_count.total"]);
  const usage =
    promptTokens !== undefined || completionTokens !== undefined
      ? {
          promptTokens: promptTokens ?? 0,
          completionTokens: completionTokens ?? 0,
          totalTokens: totalTokens ?? (promptTokens ?? 0) + (completionTokens ?? 0),
        }
      : usageOf(output, { name: span.name });
  if (usage) span.usage = usage;
  const messages =
    "gen_ai.input.messages" in attrs || "gen_ai.output.messages" in attrs
      ? [...genAiMessages(attrs["gen_ai.input.messages"]), ...genAiMessages(attrs["gen_ai.output.messages"])]
      : [...requestMessages(input, { name: span.name }), ...responseMessages(output, { name: span.name })];
  if (messages.length > 0) span.messages = messages;
}

/** Tool call id, annotation (a suspension), the call it resumes and the handle flags. */
function addToolDetails(span: ViewSpan, attrs: JsonObject, at: (key: string) => Json | undefined): void {
  const handle = parseMaybeJson(at("handle_attributes"));
  if (Array.isArray(handle)) span.flags = handle.filter((a): a is string => typeof a === "string");
  const toolCallId = str(at("tool_call_id")) ?? str(attrs["gen_ai.tool.call.id"]) ?? str(attrs["tool_call.id"]);
  if (toolCallId) span.toolCallId = toolCallId;
  const annotation = at("tool.result.annotation");
  if (annotation !== undefined && annotation !== null) {
    span.annotation = parseMaybeJson(annotation);
    if (isJsonObject(span.annotation) && span.annotation["pending"] !== undefined) span.suspended = true;
  }
  const retryOf = str(at("start.metadata.relaytrace.retry_of"));
  if (retryOf) span.resumes = idHex(retryOf).slice(16);
}

function spanOf(raw: JsonObject, resource: JsonObject, source: string): ViewSpan {
  const attrs = attributesOf(raw["attributes"]);
  const ns = namespaceOf(attrs);
  const at = (key: string) => (ns ? attrs[`${ns}.${key}`] : undefined);
  const name = str(raw["name"] as Json) ?? "(unnamed)";
  const start = nanosToMicros(raw["startTimeUnixNano"]);
  const end = Math.max(start, nanosToMicros(raw["endTimeUnixNano"]));
  const kind =
    str(at("scope_type")) ??
    OPENINFERENCE_KINDS[str(attrs["openinference.span.kind"]) ?? ""] ??
    GEN_AI_KINDS[str(attrs["gen_ai.operation.name"]) ?? ""] ??
    (name.startsWith("mark:") && start === end ? "mark" : "unknown");
  const status = statusOf(raw["status"]);
  const events = eventsOf(raw, ns);
  const span: ViewSpan = {
    id: hexId(raw["spanId"]),
    traceId: hexId(raw["traceId"]),
    parentId: str(raw["parentSpanId"] as Json) ? hexId(raw["parentSpanId"]) : null,
    name,
    kind,
    status,
    start,
    end,
    flags: [],
    input: ns ? unflatten(attrs, `${ns}.start.data`) : parseMaybeJson(attrs["input.value"]),
    output: ns ? unflatten(attrs, `${ns}.end.data`) : parseMaybeJson(attrs["output.value"]),
    marks: events.marks,
    metadata: { attributes: attrs, resource },
    source,
  };
  if (status === "ERROR") span.error = errorOf(raw, attrs, events);
  addToolDetails(span, attrs, at);
  if (kind === "llm") addLlmDetails(span, attrs, at);
  return span;
}

/** Every span of the request; `mark:` spans whose parent is present become marks on that parent. */
export function spansFromOtlp(doc: unknown, source: string): ViewSpan[] {
  const spans: ViewSpan[] = [];
  const resourceSpans = isJsonObject(doc) && Array.isArray(doc["resourceSpans"]) ? doc["resourceSpans"] : [];
  for (const rs of resourceSpans) {
    if (!isJsonObject(rs)) continue;
    const resource = attributesOf(isJsonObject(rs["resource"]) ? rs["resource"]["attributes"] : undefined);
    for (const ss of Array.isArray(rs["scopeSpans"]) ? rs["scopeSpans"] : []) {
      if (!isJsonObject(ss) || !Array.isArray(ss["spans"])) continue;
      for (const raw of ss["spans"]) if (isJsonObject(raw)) spans.push(spanOf(raw, resource, source));
    }
  }
  const byId = new Map<string, ViewSpan>();
  for (const s of spans) byId.set(`${s.traceId}/${s.id}`, s);
  const kept: ViewSpan[] = [];
  for (const s of spans) {
    const parent = s.parentId !== null ? byId.get(`${s.traceId}/${s.parentId}`) : undefined;
    if (s.kind === "mark" && parent && parent.kind !== "mark") {
      const attrs = isJsonObject(s.metadata) && isJsonObject(s.metadata["attributes"]) ? s.metadata["attributes"] : {};
      parent.marks.push({
        id: s.id,
        name: s.name.replace(/^mark:/, ""),
        time: s.start,
        pending: s.start >= parent.end,
        category: null,
        data: attrs,
        metadata: null,
      });
      if (s.name === "mark:tool.pending") parent.suspended = true;
      continue;
    }
    kept.push(s);
  }
  return kept;
}
