import { META_STATUS_DESCRIPTION, PROFILE_MODEL_NAME, PROFILE_TOOL_CALL_ID } from "../../src/events/wire-names.js";
import { isJsonObject } from "../../src/events/json.js";
import { eventMicros } from "../../src/events/timestamp.js";
import { SpanKind, type Attributes } from "@opentelemetry/api";
import type { Category, ScopeEvent } from "../../src/events/types.js";
import { writeEmbeddingUsage, writeGenAiRequest, writeGenAiResponse } from "./gen-ai-llm.js";
import { genAiProviderOf, lookupNumber, lookupString } from "./gen-ai-lookup.js";
import { llmRequestOf } from "./llm-body.js";
import type { OpenSpan } from "./open-span.js";
import type { Projection } from "./projection.js";
import { jsonText } from "./flatten.js";
import { toolOutputOf } from "./tool-output.js";
import type { WireToolDef } from "../../src/wire/index.js";
import { profileString, scopeTypeOf } from "./scope-attributes.js";
import * as G from "./semconv.js";

const MCP_TOOL_KEYS = ["mcp.method.name", "mcp.session.id", "network.transport"] as const;

/** `gen_ai.operation.name` of an LLM event by its name. */
export function llmOperationOf(name: string): string {
  const lower = name.toLowerCase();
  if (lower.includes("generate_content") || lower.includes("generatecontent")) return G.GenAiOperation.generateContent;
  if (lower.includes("completion") && !lower.includes("chat")) return G.GenAiOperation.textCompletion;
  return G.GenAiOperation.chat;
}

function requestModelOf(start: ScopeEvent): string | undefined {
  const bodyModel = llmRequestOf(start)?.request.model || undefined;
  return profileString(start, PROFILE_MODEL_NAME) ?? bodyModel ?? lookupString(start, "gen_ai.request.model", "model_name", "model");
}

/** Operations a scope of any category may declare in its metadata (`gen_ai.operation.name`). */
const DECLARED_OPERATIONS: ReadonlySet<string> = new Set([G.GenAiOperation.createAgent, G.GenAiOperation.invokeWorkflow]);

function declaredOperation(start: ScopeEvent): string | undefined {
  const declared = lookupString(start, G.GEN_AI_OPERATION_NAME);
  return declared !== undefined && DECLARED_OPERATIONS.has(declared) ? declared : undefined;
}

function agentNameOf(start: ScopeEvent): string {
  return lookupString(start, G.GEN_AI_AGENT_NAME) ?? start.name;
}

function operationAndQualifier(start: ScopeEvent): [string, string] | undefined {
  const declared = declaredOperation(start);
  if (declared === G.GenAiOperation.createAgent) return [declared, agentNameOf(start)];
  if (declared === G.GenAiOperation.invokeWorkflow) return [declared, lookupString(start, G.GEN_AI_WORKFLOW_NAME) ?? start.name];
  switch (scopeTypeOf(start.category)) {
    case "agent":
      return [G.GenAiOperation.invokeAgent, agentNameOf(start)];
    case "llm":
      return [llmOperationOf(start.name), requestModelOf(start) ?? ""];
    case "tool":
      return [G.GenAiOperation.executeTool, lookupString(start, G.GEN_AI_TOOL_NAME) ?? start.name];
    case "embedder":
      return [G.GenAiOperation.embeddings, requestModelOf(start) ?? ""];
    case "retriever":
      return [G.GenAiOperation.retrieval, dataSourceOf(start) ?? ""];
    default:
      return undefined;
  }
}

function dataSourceOf(start: ScopeEvent): string | undefined {
  return lookupString(start, G.GEN_AI_DATA_SOURCE_ID, "data_source_id", "index_name", "collection_name");
}

/** `gen_ai.tool.definitions`: the tools a chat request offered, as the conventions list them. */
function writeToolDefinitions(attrs: Attributes, tools: readonly WireToolDef[]): void {
  if (tools.length === 0) return;
  attrs[G.GEN_AI_TOOL_DEFINITIONS] = jsonText(
    tools.map((t) => ({
      type: "function",
      name: t.name,
      ...(t.description !== undefined ? { description: t.description } : {}),
      parameters: t.inputSchema,
    })),
  );
}

/**
 * The `gen_ai.client.operation.exception` event of a failed model call, with the error's class
 * and the status description the span already carries as its message: a log record parented to
 * the span, at WARN (13) as the conventions ask.
 */
function recordClientException(end: ScopeEvent, span: OpenSpan): void {
  const metadata = isJsonObject(end.metadata) ? end.metadata : {};
  const type = metadata[G.EXCEPTION_TYPE] ?? metadata[G.ERROR_TYPE];
  const message = metadata[META_STATUS_DESCRIPTION];
  const attributes: Attributes = {};
  if (typeof type === "string" && type !== "") attributes[G.EXCEPTION_TYPE] = type;
  if (typeof message === "string" && message !== "") attributes[G.EXCEPTION_MESSAGE] = message;
  if (Object.keys(attributes).length === 0) attributes[G.EXCEPTION_TYPE] = G.ERROR_TYPE_OTHER;
  let us = span.startUs;
  try {
    us = eventMicros(end);
  } catch {
    // an end whose timestamp does not parse keeps the span's start as the event's time
  }
  (span.logRecords ??= []).push({ name: G.GEN_AI_CLIENT_OPERATION_EXCEPTION, us, severityNumber: 13, severityText: "WARN", attributes });
}

function setString(attrs: Attributes, key: string, value: string | undefined): void {
  if (value !== undefined && value !== "") attrs[key] = value;
}

/** `gen_ai`: OTel GenAI semantic conventions only, no private attributes, no marks. */
export class GenAiProjection implements Projection {
  readonly name = "gen_ai" as const;
  readonly rendersMarks = false;
  readonly writesErrorType = true;
  readonly writesSessionIdentity = false;

  spanName(start: ScopeEvent): string {
    const op = operationAndQualifier(start);
    if (!op) return start.name;
    return op[1] === "" ? op[0] : `${op[0]} ${op[1]}`;
  }

  spanKind(start: ScopeEvent, type: Category): SpanKind {
    if (declaredOperation(start) === G.GenAiOperation.createAgent) return SpanKind.CLIENT;
    if (declaredOperation(start) === G.GenAiOperation.invokeWorkflow) return SpanKind.INTERNAL;
    return type === "llm" || type === "embedder" || type === "retriever" ? SpanKind.CLIENT : SpanKind.INTERNAL;
  }

  onStart(start: ScopeEvent, span: OpenSpan): void {
    const op = operationAndQualifier(start);
    if (!op) return; // minimal span: parentage only
    const attrs = span.attributes;
    attrs[G.GEN_AI_OPERATION_NAME] = op[0];
    const type = span.scopeType;
    if (op[0] === G.GenAiOperation.invokeWorkflow) {
      attrs[G.GEN_AI_WORKFLOW_NAME] = op[1];
      setString(attrs, G.GEN_AI_PROVIDER_NAME, lookupString(start, G.GEN_AI_PROVIDER_NAME, "provider_name", "provider"));
      return;
    }
    if (type === "agent" || op[0] === G.GenAiOperation.createAgent) {
      attrs[G.GEN_AI_AGENT_NAME] = op[1];
      setString(attrs, G.GEN_AI_AGENT_ID, lookupString(start, G.GEN_AI_AGENT_ID, "agent_id"));
      setString(attrs, G.GEN_AI_AGENT_VERSION, lookupString(start, G.GEN_AI_AGENT_VERSION, "agent_version"));
      setString(attrs, G.GEN_AI_AGENT_DESCRIPTION, lookupString(start, G.GEN_AI_AGENT_DESCRIPTION, "agent_description"));
      setString(attrs, G.GEN_AI_REQUEST_MODEL, lookupString(start, G.GEN_AI_REQUEST_MODEL));
      setString(attrs, G.GEN_AI_CONVERSATION_ID, this.conversationOf(start));
      setString(attrs, G.GEN_AI_PROVIDER_NAME, lookupString(start, G.GEN_AI_PROVIDER_NAME, "provider_name", "provider"));
      return;
    }
    if (type === "tool") {
      attrs[G.GEN_AI_TOOL_NAME] = op[1];
      setString(attrs, G.GEN_AI_TOOL_TYPE, lookupString(start, G.GEN_AI_TOOL_TYPE, "tool_type"));
      setString(
        attrs,
        G.GEN_AI_TOOL_CALL_ID,
        profileString(start, PROFILE_TOOL_CALL_ID) ?? lookupString(start, G.GEN_AI_TOOL_CALL_ID, "tool_call_id"),
      );
      setString(attrs, G.GEN_AI_TOOL_DESCRIPTION, lookupString(start, G.GEN_AI_TOOL_DESCRIPTION, "tool_description", "description"));
      if (start.data !== null && start.data !== undefined) attrs[G.GEN_AI_TOOL_CALL_ARGUMENTS] = jsonText(start.data);
      // A call to an MCP server keeps the MCP semantic-convention attributes it was recorded with.
      for (const key of MCP_TOOL_KEYS) setString(attrs, key, lookupString(start, key));
      return;
    }
    const provider = genAiProviderOf(start);
    setString(attrs, G.GEN_AI_PROVIDER_NAME, provider);
    setString(attrs, G.SERVER_ADDRESS, lookupString(start, G.SERVER_ADDRESS, "server_address"));
    const port = lookupNumber(start, G.SERVER_PORT, "server_port");
    if (port !== undefined) attrs[G.SERVER_PORT] = port;
    if (type === "retriever") {
      setString(attrs, G.GEN_AI_DATA_SOURCE_ID, op[1]);
      setString(attrs, G.GEN_AI_REQUEST_MODEL, requestModelOf(start));
      const topK = lookupNumber(start, G.GEN_AI_RETRIEVAL_TOP_K, "top_k");
      if (topK !== undefined) attrs[G.GEN_AI_RETRIEVAL_TOP_K] = topK;
      return;
    }
    setString(attrs, G.GEN_AI_REQUEST_MODEL, op[1]);
    if (type === "embedder") return;
    setString(attrs, G.GEN_AI_CONVERSATION_ID, this.conversationOf(start));
    const decoded = llmRequestOf(start);
    if (decoded) {
      writeGenAiRequest(attrs, decoded.request);
      writeToolDefinitions(attrs, decoded.request.tools);
    }
    // The standard requires the provider on agent spans; the loop only knows it per model call.
    if (provider) {
      for (let p = span.parentSpan; p && !p.ended; p = p.parentSpan) {
        if (p.attributes[G.GEN_AI_OPERATION_NAME] === G.GenAiOperation.invokeAgent) {
          p.attributes[G.GEN_AI_PROVIDER_NAME] ??= provider;
          break;
        }
      }
    }
  }

  onEnd(end: ScopeEvent, span: OpenSpan, succeeded = true): void {
    const type = span.scopeType;
    if (type === "tool" && succeeded) {
      const output = toolOutputOf(end.data);
      if (output !== undefined) span.attributes[G.GEN_AI_TOOL_CALL_RESULT] = output.text;
    }
    if (type === "llm") writeGenAiResponse(span.attributes, end);
    else if (type === "embedder") writeEmbeddingUsage(span.attributes, end.data);
    if (!succeeded && (type === "llm" || type === "embedder")) recordClientException(end, span);
  }

  decorateMarkSpan(): void {
    // gen_ai renders no marks
  }

  private conversationOf(start: ScopeEvent): string | undefined {
    return lookupString(start, G.GEN_AI_CONVERSATION_ID, "conversation_id", "session_id", "thread_id");
  }
}
