import type { CallOptions, Content, FinishReason, LanguageModel, Prompt, ToolResultOutput, Usage } from "./sdk-types.js";
import type { Json, JsonObject } from "../../events/json.js";
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

/** The AI SDK's language-model (v3) call shapes read into the library-neutral call record. */

function resultText(output: ToolResultOutput): string {
  switch (output.type) {
    case "text":
    case "error-text":
      return output.value;
    case "json":
    case "error-json":
      return toolOutputText(output.value);
    case "execution-denied":
      return output.reason ?? "execution denied";
    case "content":
      return output.value.map((part) => (part.type === "text" ? part.text : `[${part.type}]`)).join("\n");
  }
}

function promptMessages(prompt: Prompt): CallMessage[] {
  const out: CallMessage[] = [];
  for (const message of prompt) {
    switch (message.role) {
      case "system":
        out.push({ role: "system", text: message.content });
        break;
      case "user":
        out.push({ role: "user", text: message.content.map((p) => (p.type === "text" ? p.text : `[file ${p.mediaType}]`)).join("\n") });
        break;
      case "assistant": {
        const text: string[] = [];
        const toolCalls: CallToolCall[] = [];
        for (const part of message.content) {
          if (part.type === "text") text.push(part.text);
          else if (part.type === "tool-call") toolCalls.push({ id: part.toolCallId, name: part.toolName, arguments: part.input as Json });
        }
        out.push({ role: "assistant", text: text.join(""), toolCalls });
        // Results of provider-executed tools sit in the assistant message; they answer calls too.
        for (const part of message.content) {
          if (part.type === "tool-result") out.push({ role: "tool", toolCallId: part.toolCallId, text: resultText(part.output) });
        }
        break;
      }
      case "tool":
        for (const part of message.content) {
          if (part.type === "tool-result") out.push({ role: "tool", toolCallId: part.toolCallId, text: resultText(part.output) });
        }
        break;
    }
  }
  return out;
}

function toolChoice(choice: CallOptions["toolChoice"]): Json | undefined {
  if (!choice) return undefined;
  if (choice.type === "tool") return { type: "function", function: { name: choice.toolName } };
  return choice.type;
}

/** The request a middleware sees, as a call record. */
export function requestOf(params: CallOptions, model: LanguageModel, stream: boolean): CallRequest {
  const tools: CallToolDefinition[] = [];
  for (const tool of params.tools ?? []) {
    if (tool.type === "function") {
      tools.push({
        name: tool.name,
        ...(tool.description !== undefined ? { description: tool.description } : {}),
        parameters: tool.inputSchema as Json,
      });
    }
  }
  const settings: JsonObject = {};
  const put = (key: string, value: Json | undefined) => {
    if (value !== undefined) settings[key] = value;
  };
  put("max_tokens", params.maxOutputTokens);
  put("temperature", params.temperature);
  put("top_p", params.topP);
  put("top_k", params.topK);
  put("presence_penalty", params.presencePenalty);
  put("frequency_penalty", params.frequencyPenalty);
  put("seed", params.seed);
  put("stop", params.stopSequences);
  put("tool_choice", toolChoice(params.toolChoice));
  if (params.responseFormat?.type === "json") put("response_format", { type: "json_object" });
  return { model: model.modelId, messages: promptMessages(params.prompt), tools, settings, stream };
}

/** The SDK's finish reason on the Chat Completions scale. */
export function finishReasonOf(reason: FinishReason | undefined): CallFinishReason | string | undefined {
  if (reason === undefined) return undefined;
  switch (reason.unified) {
    case "tool-calls":
      return "tool_calls";
    case "content-filter":
      return "content_filter";
    case "stop":
    case "length":
      return reason.unified;
    default:
      return reason.raw ?? reason.unified;
  }
}

export function usageOf(usage: Usage | undefined): CallUsage | undefined {
  if (!usage) return undefined;
  const out: CallUsage = {};
  if (usage.inputTokens.total !== undefined) out.inputTokens = usage.inputTokens.total;
  if (usage.outputTokens.total !== undefined) out.outputTokens = usage.outputTokens.total;
  if (usage.inputTokens.cacheRead !== undefined) out.cachedTokens = usage.inputTokens.cacheRead;
  return out;
}

/** The text and tool calls of a generate result's content. */
export function contentOf(content: readonly Content[]): { text: string; toolCalls: CallToolCall[] } {
  const text: string[] = [];
  const toolCalls: CallToolCall[] = [];
  for (const part of content) {
    if (part.type === "text") text.push(part.text);
    else if (part.type === "tool-call") toolCalls.push({ id: part.toolCallId, name: part.toolName, arguments: part.input });
  }
  return { text: text.join(""), toolCalls };
}

export function responseOf(
  parts: { text: string; toolCalls: CallToolCall[] },
  meta: { id?: string; modelId?: string } | undefined,
  model: LanguageModel,
  finishReason: FinishReason | undefined,
  usage: Usage | undefined,
): CallResponse {
  const response: CallResponse = { ...parts, model: meta?.modelId ?? model.modelId };
  if (meta?.id !== undefined) response.id = meta.id;
  const finish = finishReasonOf(finishReason);
  if (finish !== undefined) response.finishReason = finish;
  const u = usageOf(usage);
  if (u !== undefined) response.usage = u;
  return response;
}
