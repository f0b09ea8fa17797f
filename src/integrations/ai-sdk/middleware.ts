import type { LanguageModelMiddleware } from "ai";
import type { Json, JsonObject } from "../../events/json.js";
import type { LlmHandle } from "../../runtime/types.js";
import type { Runtime } from "../../runtime/runtime.js";
import { ChunkTiming } from "../../runtime/stream-record.js";
import { META_TIME_PER_OUTPUT_CHUNK_MS } from "../../events/wire-names.js";
import { CHAT_COMPLETIONS_SCHEMA, chatCompletionsRequest, chatCompletionsResponse, type CallToolCall } from "../chat-completions-body.js";
import { declareAdapterOptions, runtimeOf, type AdapterOptions } from "../runtime-of.js";
import { contentOf, requestOf, responseOf } from "./call-body.js";
import type { CallOptions, FinishReason, LanguageModel, StreamPart, Usage } from "./sdk-types.js";

/** Options of `relaytraceMiddleware`. */
export type RelaytraceMiddlewareOptions = AdapterOptions;

const MIDDLEWARE_OPTIONS = declareAdapterOptions<RelaytraceMiddlewareOptions>("relaytraceMiddleware", {});

function llmRequest(params: CallOptions, model: LanguageModel, stream: boolean): { headers: Record<string, Json>; content: Json } {
  const headers: Record<string, Json> = {};
  for (const [k, v] of Object.entries(params.headers ?? {})) if (v !== undefined) headers[k] = v;
  return { headers, content: chatCompletionsRequest(requestOf(params, model, stream)) };
}

function llmOptions(model: LanguageModel, stream: boolean) {
  const metadata: JsonObject = { "gen_ai.provider.name": model.provider };
  return { modelName: model.modelId, dataSchema: CHAT_COMPLETIONS_SCHEMA, metadata, ...(stream ? { attributes: ["streaming"] } : {}) };
}

/** The stream parts that carry output: the chunks `time_per_output_chunk_ms` times. */
const OUTPUT_PARTS: ReadonlySet<string> = new Set(["text-delta", "reasoning-delta", "tool-input-delta", "tool-call"]);

/** Collects what a stream says, part by part, into the response the `llm` scope ends with. */
class StreamRecord {
  readonly started = Date.now();
  firstChunkMs: number | undefined;
  /** When each part carrying output (text, reasoning, tool input) arrived: the time between them. */
  private readonly outputs = new ChunkTiming(this.started * 1000);
  private readonly text: string[] = [];
  private readonly toolCalls: CallToolCall[] = [];
  private meta: { id?: string; modelId?: string } = {};
  private finishReason: FinishReason | undefined;
  private usage: Usage | undefined;
  error: unknown;

  add(part: StreamPart): void {
    if (this.firstChunkMs === undefined && part.type !== "stream-start" && part.type !== "response-metadata")
      this.firstChunkMs = Date.now() - this.started;
    if (OUTPUT_PARTS.has(part.type)) this.outputs.arrived(Date.now() * 1000);
    switch (part.type) {
      case "text-delta":
        this.text.push(part.delta);
        break;
      case "tool-call":
        this.toolCalls.push({ id: part.toolCallId, name: part.toolName, arguments: part.input });
        break;
      case "response-metadata":
        if (part.id !== undefined) this.meta.id = part.id;
        if (part.modelId !== undefined) this.meta.modelId = part.modelId;
        break;
      case "finish":
        this.finishReason = part.finishReason;
        this.usage = part.usage;
        break;
      case "error":
        this.error ??= part.error;
        break;
      default:
        break;
    }
  }

  end(runtime: Runtime, handle: LlmHandle, model: LanguageModel): void {
    const metadata: JsonObject = { time_to_first_chunk_ms: this.firstChunkMs ?? Date.now() - this.started };
    const gaps = this.outputs.metadata()[META_TIME_PER_OUTPUT_CHUNK_MS];
    if (gaps !== undefined) metadata[META_TIME_PER_OUTPUT_CHUNK_MS] = gaps;
    if (this.error !== undefined) {
      runtime.endLlm(handle, null, { error: this.error, metadata });
      return;
    }
    const response = responseOf({ text: this.text.join(""), toolCalls: this.toolCalls }, this.meta, model, this.finishReason, this.usage);
    runtime.endLlm(handle, chatCompletionsResponse(response), { metadata });
  }
}

/**
 * A language-model middleware for `wrapLanguageModel`: every `generateText` and `streamText` model
 * call becomes an `llm` scope under the current relaytrace scope, with its request and response
 * recorded as Chat Completions bodies (messages, tools, settings, text, tool calls, usage with
 * cached tokens, finish reason, model). Streamed calls also record `time_to_first_chunk_ms` and
 * `time_per_output_chunk_ms` (between the parts that carry output).
 */
export function relaytraceMiddleware(options: RelaytraceMiddlewareOptions = {}): LanguageModelMiddleware {
  MIDDLEWARE_OPTIONS.check(options);
  return {
    specificationVersion: "v3",
    async wrapGenerate({ doGenerate, params, model }) {
      const runtime = runtimeOf(options);
      let result: Awaited<ReturnType<typeof doGenerate>> | undefined;
      await runtime.executeLlm(
        model.provider,
        llmRequest(params, model, false),
        async () => {
          result = await doGenerate();
          return chatCompletionsResponse(responseOf(contentOf(result.content), result.response, model, result.finishReason, result.usage));
        },
        // The SDK sends its own request: a header added here would never reach the wire.
        { ...llmOptions(model, false), injectTraceparent: false },
      );
      return result!;
    },
    async wrapStream({ doStream, params, model }) {
      const runtime = runtimeOf(options);
      const handle = runtime.startLlm(model.provider, llmRequest(params, model, true), llmOptions(model, true));
      let opened: Awaited<ReturnType<typeof doStream>>;
      try {
        opened = await doStream();
      } catch (error) {
        runtime.endLlm(handle, null, { error });
        throw error;
      }
      const record = new StreamRecord();
      let ended = false;
      const end = (error?: unknown) => {
        if (ended) return;
        ended = true;
        if (error !== undefined) record.error ??= error;
        record.end(runtime, handle, model);
      };
      // A pulled copy of the stream: the scope ends when it is drained, fails or is cancelled.
      const reader = opened.stream.getReader();
      const stream = new ReadableStream<StreamPart>({
        async pull(controller) {
          let step: Awaited<ReturnType<typeof reader.read>>;
          try {
            step = await reader.read();
          } catch (error) {
            end(error);
            controller.error(error);
            return;
          }
          if (step.done) {
            end();
            controller.close();
            return;
          }
          record.add(step.value);
          controller.enqueue(step.value);
        },
        async cancel(reason) {
          end(reason ?? new Error("stream cancelled"));
          await reader.cancel(reason);
        },
      });
      return { ...opened, stream };
    },
  };
}
