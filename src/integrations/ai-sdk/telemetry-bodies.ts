import type { Json, JsonObject } from "../../events/json.js";
import { toJsonSafe } from "../../runtime/json-safe.js";
import type {
  CallFinishReason,
  CallMessage,
  CallRequest,
  CallResponse,
  CallToolCall,
  CallToolDefinition,
  CallUsage,
} from "../chat-completions-body.js";
import { toolOutputText } from "../chat-completions-body.js";
import type { ModelCallEndEvent, ModelCallStartEvent, TelemetryUsage } from "./telemetry-events.js";

/**
 * `ai` 7's telemetry events (model messages, prepared tools, content parts, usage) read into the
 * library-neutral call record. The events are the SDK's, typed loosely here: every field is
 * checked before it is read, so an event of another shape records less, never throws.
 */

type Obj = Record<string, unknown>;

const isObj = (value: unknown): value is Obj => value !== null && typeof value === "object" && !Array.isArray(value);
const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);
const num = (value: unknown): number | undefined => (typeof value === "number" && Number.isFinite(value) ? value : undefined);

/** The text of a tool result's `output` (`{ type: "text" | "json" | "error-text" | …, value }`). */
function outputText(output: unknown): string {
  if (!isObj(output)) return toolOutputText(output ?? null);
  switch (output["type"]) {
    case "text":
    case "error-text":
      return str(output["value"]) ?? "";
    case "json":
    case "error-json":
      return toolOutputText(output["value"] ?? null);
    case "execution-denied":
      return str(output["reason"]) ?? "execution denied";
    case "content":
      return Array.isArray(output["value"])
        ? output["value"]
            .map((p: unknown) => (isObj(p) && p["type"] === "text" ? (str(p["text"]) ?? "") : `[${String(isObj(p) ? p["type"] : p)}]`))
            .join("\n")
        : "";
    default:
      return toolOutputText(output);
  }
}

/** The text of a message's content: a string, or its text parts (files and images as placeholders). */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const out: string[] = [];
  for (const part of content) {
    if (!isObj(part)) continue;
    if (part["type"] === "text") out.push(str(part["text"]) ?? "");
    else if (part["type"] === "image" || part["type"] === "file")
      out.push(`[${String(part["type"])} ${str(part["mediaType"]) ?? ""}]`.replace(" ]", "]"));
  }
  return out.join("\n");
}

function toolCallOf(part: Obj): CallToolCall {
  return { id: str(part["toolCallId"]) ?? "", name: str(part["toolName"]) ?? "", arguments: toJsonSafe(part["input"] ?? null) };
}

/** The system messages of `instructions`: a string, a system message, or a list of them. */
function instructionMessages(instructions: unknown): CallMessage[] {
  const list = Array.isArray(instructions) ? instructions : instructions === undefined || instructions === null ? [] : [instructions];
  const out: CallMessage[] = [];
  for (const item of list) {
    const text = typeof item === "string" ? item : isObj(item) ? contentText(item["content"]) : "";
    if (text !== "") out.push({ role: "system", text });
  }
  return out;
}

/** The SDK's instructions and model messages as call messages. */
export function messagesOf(instructions: unknown, messages: readonly unknown[] | undefined): CallMessage[] {
  const out = instructionMessages(instructions);
  for (const message of messages ?? []) {
    if (!isObj(message)) continue;
    const content = message["content"];
    switch (message["role"]) {
      case "system":
      case "user":
        out.push({ role: message["role"], text: contentText(content) });
        break;
      case "assistant": {
        const toolCalls: CallToolCall[] = [];
        const results: CallMessage[] = [];
        const text: string[] = typeof content === "string" ? [content] : [];
        for (const part of Array.isArray(content) ? content : []) {
          if (!isObj(part)) continue;
          if (part["type"] === "text") text.push(str(part["text"]) ?? "");
          else if (part["type"] === "tool-call") toolCalls.push(toolCallOf(part));
          // Results of provider-executed tools sit in the assistant message; they answer calls too.
          else if (part["type"] === "tool-result")
            results.push({ role: "tool", toolCallId: str(part["toolCallId"]) ?? "", text: outputText(part["output"]) });
        }
        out.push({ role: "assistant", text: text.join(""), toolCalls }, ...results);
        break;
      }
      case "tool":
        for (const part of Array.isArray(content) ? content : []) {
          if (isObj(part) && part["type"] === "tool-result")
            out.push({ role: "tool", toolCallId: str(part["toolCallId"]) ?? "", text: outputText(part["output"]) });
        }
        break;
      default:
        break;
    }
  }
  return out;
}

/** The text of the last user message: what the user asked. */
export function userText(messages: readonly unknown[] | undefined): string | undefined {
  for (let i = (messages?.length ?? 0) - 1; i >= 0; i--) {
    const m = messages![i];
    if (isObj(m) && m["role"] === "user") return contentText(m["content"]);
  }
  return undefined;
}

function toolDefinitions(tools: ModelCallStartEvent["tools"]): CallToolDefinition[] {
  const out: CallToolDefinition[] = [];
  for (const tool of tools ?? []) {
    const name = str(tool["name"]);
    if (tool["type"] !== "function" || name === undefined) continue;
    const description = str(tool["description"]);
    out.push({ name, ...(description !== undefined ? { description } : {}), parameters: toJsonSafe(tool["inputSchema"] ?? null) });
  }
  return out;
}

/** The request of a model call; without content, no messages (the tools and settings stay). */
export function telemetryRequest(event: ModelCallStartEvent, stream: boolean, captureContent: boolean): CallRequest {
  const settings: JsonObject = {};
  const put = (key: string, value: Json | undefined) => {
    if (value !== undefined) settings[key] = value;
  };
  put("max_tokens", num(event.maxOutputTokens));
  put("temperature", num(event.temperature));
  put("top_p", num(event.topP));
  put("top_k", num(event.topK));
  put("presence_penalty", num(event.presencePenalty));
  put("frequency_penalty", num(event.frequencyPenalty));
  put("seed", num(event.seed));
  if (Array.isArray(event.stopSequences) && event.stopSequences.length > 0) put("stop", [...event.stopSequences]);
  return {
    model: event.modelId,
    messages: captureContent ? messagesOf(event.instructions, event.messages) : [],
    tools: toolDefinitions(event.tools),
    settings,
    stream,
  };
}

/** The SDK's unified finish reason on the Chat Completions scale. */
export function finishReasonOf(reason: unknown): CallFinishReason | string | undefined {
  switch (reason) {
    case "tool-calls":
      return "tool_calls";
    case "content-filter":
      return "content_filter";
    default:
      return str(reason);
  }
}

export function usageOf(usage: TelemetryUsage | undefined): CallUsage | undefined {
  if (usage === null || typeof usage !== "object") return undefined;
  const out: CallUsage = {};
  const input = num(usage.inputTokens);
  const output = num(usage.outputTokens);
  const cached = num(usage.inputTokenDetails?.cacheReadTokens);
  if (input !== undefined) out.inputTokens = input;
  if (output !== undefined) out.outputTokens = output;
  if (cached !== undefined) out.cachedTokens = cached;
  return out;
}

/** The reply of a model call; without content, its tool calls keep their ids and names only. */
export function telemetryResponse(event: ModelCallEndEvent, captureContent: boolean): CallResponse {
  const text: string[] = [];
  const toolCalls: CallToolCall[] = [];
  for (const part of Array.isArray(event.content) ? event.content : []) {
    if (!isObj(part)) continue;
    if (part["type"] === "text") text.push(str(part["text"]) ?? "");
    else if (part["type"] === "tool-call") {
      const call = toolCallOf(part);
      toolCalls.push(captureContent ? call : { ...call, arguments: "" });
    }
  }
  const response: CallResponse = { text: captureContent ? text.join("") : "", toolCalls, model: event.modelId };
  const id = str(event.responseId);
  if (id !== undefined) response.id = id;
  const finish = finishReasonOf(event.finishReason);
  if (finish !== undefined) response.finishReason = finish;
  const usage = usageOf(event.usage);
  if (usage !== undefined) response.usage = usage;
  return response;
}
