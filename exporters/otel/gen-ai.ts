import { PROFILE_MODEL_NAME, PROFILE_TOOL_CALL_ID } from "../../src/events/wire-names.js";
import { SpanKind, type Attributes } from "@opentelemetry/api";
import type { Category, ScopeEvent } from "../../src/events/types.js";
import { writeEmbeddingUsage, writeGenAiRequest, writeGenAiResponse } from "./gen-ai-llm.js";
import { genAiProviderOf, lookupNumber, lookupString } from "./gen-ai-lookup.js";
import { llmRequestOf } from "./llm-body.js";
import { writeGenAiAgentUsage } from "./llm-totals.js";
import type { OpenSpan } from "./open-span.js";
import type { Projection } from "./projection.js";
import { jsonText } from "./flatten.js";
import { toolOutputOf } from "./tool-output.js";
import type { WireToolDef } from "../../src/wire/index.js";
import { profileString, scopeTypeOf } from "./scope-attributes.js";
import type { GenAiConventions } from "./env.js";
import { inferenceExceptionEvent, operationExceptionEvent, type GenAiEventSink } from "./gen-ai-events.js";
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

/** v0.1.0 names a workflow by `gen_ai.agent.name`; v1.41's `gen_ai.workflow.name` is still read as its name. */
function workflowNameOf(start: ScopeEvent, conventions: GenAiConventions): string {
  const workflowName = lookupString(start, G.GEN_AI_WORKFLOW_NAME);
  if (conventions === "0.1.0") return lookupString(start, G.GEN_AI_AGENT_NAME) ?? workflowName ?? start.name;
  return workflowName ?? start.name;
}

function operationAndQualifier(start: ScopeEvent, conventions: GenAiConventions): [string, string] | undefined {
  const declared = declaredOperation(start);
  if (declared === G.GenAiOperation.createAgent) return [declared, agentNameOf(start)];
  if (declared === G.GenAiOperation.invokeWorkflow) return [declared, workflowNameOf(start, conventions)];
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

function setString(attrs: Attributes, key: string, value: string | undefined): void {
  if (value !== undefined && value !== "") attrs[key] = value;
}

/**
 * `gen_ai`: OTel GenAI semantic conventions only, no private attributes, no marks. v1.41 by
 * default; v0.1.0 (semantic-conventions-genai) merges workflows into the internal agent span,
 * whose `invoke_agent` form then drops the agent id, version and provider, spells the cache-write
 * count `cache_write`, types `top_k` as an int and sends a failed model call's exception to
 * `events` as the `gen_ai.client.inference.exception` log record.
 */
export class GenAiProjection implements Projection {
  readonly name = "gen_ai" as const;
  readonly rendersMarks = false;
  readonly writesErrorType = true;
  readonly writesSessionIdentity = false;

  constructor(
    readonly conventions: GenAiConventions = "1.41",
    private readonly events?: GenAiEventSink,
  ) {}

  spanName(start: ScopeEvent): string {
    const op = operationAndQualifier(start, this.conventions);
    if (!op) return start.name;
    return op[1] === "" ? op[0] : `${op[0]} ${op[1]}`;
  }

  spanKind(start: ScopeEvent, type: Category): SpanKind {
    if (declaredOperation(start) === G.GenAiOperation.createAgent) return SpanKind.CLIENT;
    if (declaredOperation(start) === G.GenAiOperation.invokeWorkflow) return SpanKind.INTERNAL;
    return type === "llm" || type === "embedder" || type === "retriever" ? SpanKind.CLIENT : SpanKind.INTERNAL;
  }

  onStart(start: ScopeEvent, span: OpenSpan): void {
    const op = operationAndQualifier(start, this.conventions);
    if (!op) return; // minimal span: parentage only
    const attrs = span.attributes;
    attrs[G.GEN_AI_OPERATION_NAME] = op[0];
    const type = span.scopeType;
    const latest = this.conventions === "0.1.0";
    if (latest && (op[0] === G.GenAiOperation.invokeWorkflow || (type === "agent" && op[0] === G.GenAiOperation.invokeAgent))) {
      this.startInternalAgent(start, op, attrs);
      return;
    }
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
      writeGenAiRequest(attrs, decoded.request, this.conventions);
      writeToolDefinitions(attrs, decoded.request.tools);
    }
    // v1.41 requires the provider on agent spans; the loop only knows it per model call.
    if (provider && !latest) {
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
    if (type === "llm") writeGenAiResponse(span.attributes, end, this.conventions);
    else if (type === "embedder") writeEmbeddingUsage(span.attributes, end.data);
    else if (span.attributes[G.GEN_AI_OPERATION_NAME] === G.GenAiOperation.invokeAgent) {
      writeGenAiAgentUsage(span.attributes, end, this.conventions);
    }
    if (succeeded) return;
    // Both versions define the exception event as a log record; v0.1.0 defines it for inference only.
    if (this.conventions === "0.1.0") {
      if (type === "llm") this.events?.(inferenceExceptionEvent(end, span));
    } else if (type === "llm" || type === "embedder") this.events?.(operationExceptionEvent(end, span));
  }

  decorateMarkSpan(): void {
    // gen_ai renders no marks
  }

  /**
   * v0.1.0's internal agent span, an agent's or a workflow's (`gen_ai.operation.name` stays
   * `invoke_workflow`): named by `gen_ai.agent.name`, without the agent id, version or provider.
   */
  private startInternalAgent(start: ScopeEvent, op: [string, string], attrs: Attributes): void {
    attrs[G.GEN_AI_AGENT_NAME] = op[1];
    setString(attrs, G.GEN_AI_AGENT_DESCRIPTION, lookupString(start, G.GEN_AI_AGENT_DESCRIPTION, "agent_description"));
    if (op[0] === G.GenAiOperation.invokeAgent) setString(attrs, G.GEN_AI_REQUEST_MODEL, lookupString(start, G.GEN_AI_REQUEST_MODEL));
    setString(attrs, G.GEN_AI_CONVERSATION_ID, this.conversationOf(start));
  }

  private conversationOf(start: ScopeEvent): string | undefined {
    return lookupString(start, G.GEN_AI_CONVERSATION_ID, "conversation_id", "session_id", "thread_id");
  }
}
