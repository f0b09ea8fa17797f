import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { Serialized } from "@langchain/core/load/serializable";
import type { BaseMessage } from "@langchain/core/messages";
import type { LLMResult } from "@langchain/core/outputs";
import type { ChainValues } from "@langchain/core/utils/types";
import type { Json, JsonObject } from "../../events/json.js";
import type { Category } from "../../events/types.js";
import { toJsonSafe } from "../../runtime/json-safe.js";
import type { Runtime } from "../../runtime/runtime.js";
import type { LlmHandle, ToolHandle } from "../../runtime/types.js";
import { CHAT_COMPLETIONS_SCHEMA, chatCompletionsRequest, chatCompletionsResponse, type CallMessage } from "../chat-completions-body.js";
import { closeDetached, currentScopeUuid, openDetached, type DetachedScope } from "../detached-scopes.js";
import { asError, parseJsonText } from "../json-text.js";
import { declareAdapterOptions, runtimeOf, type AdapterOptions } from "../runtime-of.js";
import { messageOf, requestOf, responseOf } from "./messages.js";
import { promptOfRun, PROMPT_RUN_TYPE } from "./prompt-runs.js";
import { AskedToolCalls } from "./tool-call-ids.js";
import type { PromptRef } from "../../runtime/prompt.js";

/** A manual tool end sets no status of its own; a run LangChain ended without error is OK. */
const OK_STATUS: JsonObject = { "otel.status_code": "OK" };

/** Options of `RelaytraceCallbackHandler`. */
export type RelaytraceCallbackHandlerOptions = AdapterOptions;

const HANDLER_OPTIONS = declareAdapterOptions<RelaytraceCallbackHandlerOptions>("RelaytraceCallbackHandler", {});

type Run =
  | { kind: "scope"; uuid: string; scope: DetachedScope; prompt?: { parentRunId: string; prompt: PromptRef } }
  | { kind: "llm"; uuid: string; handle: LlmHandle; model: string | undefined }
  | { kind: "tool"; uuid: string; handle: ToolHandle };

function serializedName(serialized: Serialized | undefined, fallback: string): string {
  const id = (serialized as { id?: unknown } | undefined)?.id;
  return (serialized as { name?: string } | undefined)?.name ?? (Array.isArray(id) ? String(id[id.length - 1]) : fallback);
}

function modelOf(params: Record<string, unknown>, metadata: Record<string, unknown> | undefined): string | undefined {
  const model = params["model"] ?? params["model_name"] ?? params["modelName"] ?? metadata?.["ls_model_name"];
  return typeof model === "string" ? model : undefined;
}

/** A tool's output: a ToolMessage's content, or the value itself. */
function toolOutput(output: unknown): Json {
  if (
    output !== null &&
    typeof output === "object" &&
    "content" in output &&
    typeof (output as { getType?: unknown }).getType === "function"
  ) {
    return parseJsonText((output as { content: unknown }).content);
  }
  return parseJsonText(output);
}

/**
 * A `@langchain/core` callback handler: chat-model and LLM runs become `llm` scopes (messages,
 * tool definitions, text, tool calls, token usage), tool runs `tool` scopes with the tool call id,
 * chains scopes (a chain run at the top of an invocation is the `agent`, nested ones are
 * `function` scopes), retrievers `retriever` scopes — nested by LangChain's run ids, under the
 * relaytrace scope your code is in. Errors end their scope with the error. A model run that
 * follows a prompt template's run in the same chain (`prompt.pipe(model)`) records that prompt:
 * the run name, the template and the values filled in.
 */
export class RelaytraceCallbackHandler extends BaseCallbackHandler {
  name = "relaytrace";
  // Inline, so a run's start is recorded before its children start and in the caller's context.
  override awaitHandlers = true;
  private readonly runs = new Map<string, Run>();
  /**
   * The prompt a finished prompt-template run made, by its parent run: the next model run under
   * that parent (`prompt | model` in a sequence) was called with it, and records it.
   */
  private readonly prompts = new Map<string, PromptRef>();
  /** The tool calls model runs asked for, for the tool runs of LangChain releases that omit the call id. */
  private readonly asked = new AskedToolCalls();

  constructor(private readonly options: RelaytraceCallbackHandlerOptions = {}) {
    HANDLER_OPTIONS.check(options);
    super();
  }

  private get runtime(): Runtime {
    return runtimeOf(this.options);
  }

  private parentOf(parentRunId: string | undefined): string {
    return (parentRunId !== undefined ? this.runs.get(parentRunId)?.uuid : undefined) ?? currentScopeUuid();
  }

  private openScope(
    runId: string,
    name: string,
    category: Category,
    parentRunId: string | undefined,
    input: Json,
    metadata?: JsonObject,
  ): void {
    const scope = openDetached(this.runtime, name, {
      category,
      parentUuid: this.parentOf(parentRunId),
      input,
      ...(metadata ? { metadata } : {}),
    });
    this.runs.set(runId, { kind: "scope", uuid: scope.handle.uuid, scope });
  }

  private startLlm(
    runId: string,
    parentRunId: string | undefined,
    messages: CallMessage[],
    extraParams: Record<string, unknown> | undefined,
    metadata: Record<string, unknown> | undefined,
    name: string,
  ): void {
    const params = (extraParams?.["invocation_params"] ?? {}) as Record<string, unknown>;
    const model = modelOf(params, metadata);
    const prompt = parentRunId !== undefined ? this.prompts.get(parentRunId) : undefined;
    if (prompt !== undefined) this.prompts.delete(parentRunId!);
    const handle = this.runtime.startLlm(
      name,
      { content: chatCompletionsRequest(requestOf(messages, params, model)) },
      {
        parent: { uuid: this.parentOf(parentRunId) },
        ...(prompt !== undefined ? { prompt } : {}),
        dataSchema: CHAT_COMPLETIONS_SCHEMA,
        ...(model !== undefined ? { modelName: model } : {}),
        ...(params["stream"] === true ? { attributes: ["streaming"] } : {}),
      },
    );
    this.runs.set(runId, { kind: "llm", uuid: handle.uuid, handle, model });
  }

  /** Removes and returns a run: a run ends once. A chain's pending prompt goes with it. */
  private take(runId: string): Run | undefined {
    const run = this.runs.get(runId);
    this.runs.delete(runId);
    this.prompts.delete(runId);
    this.asked.forget(runId);
    return run;
  }

  override handleChatModelStart(
    llm: Serialized,
    messages: BaseMessage[][],
    runId: string,
    parentRunId?: string,
    extraParams?: Record<string, unknown>,
    _tags?: string[],
    metadata?: Record<string, unknown>,
    runName?: string,
  ): void {
    const name = runName ?? serializedName(llm, "chat_model");
    this.startLlm(runId, parentRunId, (messages[0] ?? []).map(messageOf), extraParams, metadata, name);
  }

  override handleLLMStart(
    llm: Serialized,
    prompts: string[],
    runId: string,
    parentRunId?: string,
    extraParams?: Record<string, unknown>,
    _tags?: string[],
    metadata?: Record<string, unknown>,
    runName?: string,
  ): void {
    const messages: CallMessage[] = prompts.map((text) => ({ role: "user", text }));
    this.startLlm(runId, parentRunId, messages, extraParams, metadata, runName ?? serializedName(llm, "llm"));
  }

  override handleLLMEnd(output: LLMResult, runId: string, parentRunId?: string): void {
    const run = this.take(runId);
    if (run?.kind !== "llm") return;
    this.asked.add(parentRunId, output);
    this.runtime.endLlm(run.handle, chatCompletionsResponse(responseOf(output, run.model)));
  }

  override handleLLMError(err: Error, runId: string): void {
    const run = this.take(runId);
    if (run?.kind === "llm") this.runtime.endLlm(run.handle, null, { error: asError(err) });
  }

  override handleToolStart(
    tool: Serialized,
    input: string,
    runId: string,
    parentRunId?: string,
    _tags?: string[],
    _metadata?: Record<string, unknown>,
    runName?: string,
    toolCallId?: string,
  ): void {
    const name = runName ?? serializedName(tool, "tool");
    const callId = toolCallId ?? this.asked.claim(parentRunId, name, input);
    const handle = this.runtime.startTool(name, parseJsonText(input), {
      parent: { uuid: this.parentOf(parentRunId) },
      ...(callId !== undefined ? { toolCallId: callId } : {}),
    });
    this.runs.set(runId, { kind: "tool", uuid: handle.uuid, handle });
  }

  override handleToolEnd(output: unknown, runId: string): void {
    const run = this.take(runId);
    if (run?.kind === "tool") this.runtime.endTool(run.handle, { result: toolOutput(output) }, { metadata: OK_STATUS });
  }

  override handleToolError(err: Error, runId: string): void {
    const run = this.take(runId);
    const error = asError(err);
    if (run?.kind === "tool") this.runtime.endTool(run.handle, { error }, { data: error.message });
  }

  // The callback manager passes (…, runId, parentRunId, tags, metadata, runType, runName), whatever
  // the declared parameter names say; the types line up position by position.
  override handleChainStart(
    chain: Serialized,
    inputs: ChainValues,
    runId: string,
    parentRunId?: string,
    _tags?: string[],
    _metadata?: Record<string, unknown>,
    runType?: string,
    runName?: string,
  ): void {
    const name = runName ?? serializedName(chain, "chain");
    const root = parentRunId === undefined || !this.runs.has(parentRunId);
    this.openScope(
      runId,
      name,
      root ? "agent" : "function",
      parentRunId,
      toJsonSafe(inputs),
      runType ? { "langchain.run_type": runType } : undefined,
    );
    const run = this.runs.get(runId);
    if (runType === PROMPT_RUN_TYPE && parentRunId !== undefined && run?.kind === "scope") {
      const prompt = promptOfRun(chain, inputs, name);
      if (prompt !== undefined) run.prompt = { parentRunId, prompt };
    }
  }

  override handleChainEnd(outputs: ChainValues, runId: string): void {
    const run = this.take(runId);
    if (run?.kind !== "scope") return;
    closeDetached(this.runtime, run.scope, { output: toJsonSafe(outputs) });
    if (run.prompt !== undefined && this.runs.has(run.prompt.parentRunId)) this.prompts.set(run.prompt.parentRunId, run.prompt.prompt);
  }

  override handleChainError(err: Error, runId: string): void {
    const run = this.take(runId);
    if (run?.kind === "scope") closeDetached(this.runtime, run.scope, { error: asError(err) });
  }

  override handleRetrieverStart(
    retriever: Serialized,
    query: string,
    runId: string,
    parentRunId?: string,
    _tags?: string[],
    _metadata?: Record<string, unknown>,
    name?: string,
  ): void {
    this.openScope(runId, name ?? serializedName(retriever, "retriever"), "retriever", parentRunId, query);
  }

  override handleRetrieverEnd(documents: unknown[], runId: string): void {
    const run = this.take(runId);
    if (run?.kind === "scope") closeDetached(this.runtime, run.scope, { output: toJsonSafe(documents) });
  }

  override handleRetrieverError(err: Error, runId: string): void {
    const run = this.take(runId);
    if (run?.kind === "scope") closeDetached(this.runtime, run.scope, { error: asError(err) });
  }
}
