import { isJsonObject, type Json, type JsonObject } from "../../events/json.js";
import type { DataSchema } from "../../events/types.js";
import {
  codecForEvent,
  mediaKindOf,
  sharedDecodeRequest,
  sharedDecodeResponse,
  type WirePart,
  type WireRequest,
  type WireResponse,
  type WireToolCall,
} from "../../wire/index.js";
import type { ViewMessage, ViewUsage } from "./model.js";

/**
 * An `llm` span's recorded request and response as a conversation, read through the wire
 * codecs (the one place that knows the dialects): by the event's `data_schema`, else its name,
 * else the body's shape. Tolerant by design: an unknown or malformed body yields no messages.
 */

/** What the span says about its bodies, to pick the codec without guessing. */
export interface BodyHint {
  dataSchema?: DataSchema | null;
  name?: string;
}

/** The request body: ours wrap it as `{headers, content}`. */
function requestBody(input: Json): JsonObject | undefined {
  if (!isJsonObject(input)) return undefined;
  const content = input["content"];
  return isJsonObject(content) ? content : input;
}

function decodedRequest(input: Json, hint: BodyHint): WireRequest | undefined {
  const body = requestBody(input);
  if (!body) return undefined;
  const codec = codecForEvent({ ...hint, body, which: "request" });
  if (!codec || !codec.looksLikeRequest(body)) return undefined;
  try {
    return sharedDecodeRequest(codec, body);
  } catch {
    return undefined;
  }
}

function decodedResponse(output: Json, hint: BodyHint): WireResponse | undefined {
  if (!isJsonObject(output)) return undefined;
  const codec = codecForEvent({ ...hint, body: output, which: "response" });
  if (!codec || !codec.looksLikeResponse(output)) return undefined;
  try {
    return sharedDecodeResponse(codec, output);
  } catch {
    return undefined;
  }
}

function viewCalls(calls: readonly WireToolCall[]): Pick<ViewMessage, "toolCalls"> {
  return calls.length > 0 ? { toolCalls: calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })) } : {};
}

/** Text parts as they read, media as a placeholder naming its kind (`[image]`, `[audio]`, ...). */
function partsText(parts: readonly WirePart[]): string {
  const texts: string[] = [];
  for (const p of parts) {
    if (p.type === "text") texts.push(p.text);
    else if (p.type === "media") texts.push(`[${mediaKindOf(p.raw)}]`);
  }
  return texts.join("\n");
}

/** The messages sent to the model: the system prompt first, one `tool` message per tool result. */
export function requestMessages(input: Json, hint: BodyHint = {}): ViewMessage[] {
  const request = decodedRequest(input, hint);
  if (!request) return [];
  const out: ViewMessage[] = [];
  if (request.system !== undefined && request.system !== "") out.push({ role: "system", text: request.system });
  for (const m of request.messages) {
    const calls: WireToolCall[] = [];
    const results: ViewMessage[] = [];
    for (const p of m.parts) {
      if (p.type === "tool_result") results.push({ role: "tool", text: p.text, toolCallId: p.toolCallId });
      else if (p.type === "tool_call") calls.push(p.call);
    }
    // A message that only carries tool results is those results.
    const text = partsText(m.parts);
    if (m.role !== "tool" && (text !== "" || calls.length > 0 || results.length === 0))
      out.push({ role: m.role, text, ...viewCalls(calls) });
    out.push(...results);
  }
  return out;
}

/** The model's answer. */
export function responseMessages(output: Json, hint: BodyHint = {}): ViewMessage[] {
  if (typeof output === "string") return output !== "" ? [{ role: "assistant", text: output }] : [];
  const response = decodedResponse(output, hint);
  if (!response || (response.text === "" && response.toolCalls.length === 0)) return [];
  return [{ role: "assistant", text: response.text, ...viewCalls(response.toolCalls) }];
}

/** Token usage of a response. */
export function usageOf(output: Json, hint: BodyHint = {}): ViewUsage | undefined {
  const usage = decodedResponse(output, hint)?.usage;
  if (!usage) return undefined;
  const { inputTokens: promptTokens, outputTokens: completionTokens } = usage;
  const totalTokens =
    usage.totalTokens ??
    (promptTokens !== undefined || completionTokens !== undefined ? (promptTokens ?? 0) + (completionTokens ?? 0) : undefined);
  if (promptTokens === undefined && completionTokens === undefined && totalTokens === undefined) return undefined;
  return {
    ...(promptTokens !== undefined ? { promptTokens } : {}),
    ...(completionTokens !== undefined ? { completionTokens } : {}),
    ...(totalTokens !== undefined ? { totalTokens } : {}),
  };
}

/** The model that answered (response), else the one asked for (request). */
export function modelOf(input: Json, output: Json, hint: BodyHint = {}): string | undefined {
  const answered = decodedResponse(output, hint)?.model;
  if (answered) return answered;
  const asked = decodedRequest(input, hint)?.model;
  return asked ? asked : undefined;
}
