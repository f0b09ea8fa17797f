import type { JsonObject } from "../events/json.js";
import { WireShapeError, WireStreamError } from "./errors.js";
import { finishOnWire, replyFinish } from "./finish.js";
import { missingListReply, notAnObjectReply, replyIds, responseFromParts, type ReplyFields } from "./messages.js";
import { argumentsValue, arr, errorEnvelopeMessage, isDict, kindOf, parseChunk, str, tokens } from "./read.js";
import type { Dict } from "./read.js";
import { buildUsage, detail, onlyKey } from "./usage.js";
import type { FinishKind, StreamAssembler, WirePart, WireResponse, WireStreamEvent, WireUsage } from "./types.js";
import { callEntry, contentParts, toolCall } from "./openai-chat-request.js";

/** OpenAI Chat Completions replies: response bodies and streams, decoded, assembled and encoded. */

const FINISH_WIRE: Record<FinishKind, string> = {
  stop: "stop",
  length: "length",
  tool_calls: "tool_calls",
  content_filter: "content_filter",
};

function decodeUsage(raw: unknown): WireUsage | undefined {
  if (!isDict(raw)) return undefined;
  const consumed = ["prompt_tokens", "completion_tokens"];
  if (onlyKey(raw, "prompt_tokens_details", "cached_tokens")) consumed.push("prompt_tokens_details");
  return buildUsage(
    raw,
    {
      input: tokens(raw.prompt_tokens),
      output: tokens(raw.completion_tokens),
      total: tokens(raw.total_tokens),
      cacheRead: detail(raw, "prompt_tokens_details", "cached_tokens"),
      reasoning: detail(raw, "completion_tokens_details", "reasoning_tokens"),
    },
    consumed,
  );
}

function assistantParts(msg: Dict, strict: boolean): WirePart[] {
  const parts: WirePart[] = [];
  const reasoning = str(msg.reasoning_content) ?? str(msg.reasoning);
  if (reasoning !== undefined && reasoning !== "") parts.push({ type: "reasoning", text: reasoning });
  parts.push(...contentParts(msg.content).filter((p) => p.type === "text"));
  const calls = msg.tool_calls;
  if (strict && calls !== undefined && calls !== null && !Array.isArray(calls)) {
    throw new WireShapeError(`OpenAI reply: choices[0].message.tool_calls is ${kindOf(calls)}, expected an array`);
  }
  arr(calls).forEach((c, i) => {
    if (!isDict(c)) {
      if (strict) throw new WireShapeError(`OpenAI reply: choices[0].message.tool_calls[${i}] is ${kindOf(c)}, expected an object`);
      return;
    }
    const call = toolCall(c, "choices[0].message.tool_calls", i, strict);
    if (call) parts.push({ type: "tool_call", call });
  });
  return parts;
}

export function decodeResponse(body: unknown, strict = false): WireResponse {
  if (!isDict(body)) {
    if (strict) throw notAnObjectReply("OpenAI", body);
    return responseFromParts([], {});
  }
  const rest = replyIds(body.id, body.model);
  const usage = decodeUsage(body.usage);
  if (usage) rest.usage = usage;
  const choices = body.choices;
  if (!Array.isArray(choices)) {
    if (strict) throw missingListReply("OpenAI", "choices", body);
    // A recorded assistant message without the envelope (`{content, tool_calls}`).
    return responseFromParts(assistantParts(body, false), rest);
  }
  // No choices: the turn is done with "" (the loop finishes instead of failing).
  if (choices.length === 0) return responseFromParts([], { ...rest, finish: "stop" });
  const choice: unknown = choices[0];
  if (!isDict(choice) || !isDict(choice.message)) {
    if (strict) throw new WireShapeError("OpenAI reply has no choices[0].message object");
    return responseFromParts([], rest);
  }
  const parts = assistantParts(choice.message, strict);
  const raw = str(choice.finish_reason);
  if (raw !== undefined) rest.rawFinishReason = raw;
  const finish = replyFinish(
    raw,
    parts.some((p) => p.type === "tool_call"),
  );
  if (finish !== undefined) rest.finish = finish;
  return responseFromParts(parts, rest);
}

interface CallSlot {
  id: string;
  name: string;
  args: string;
}

/** `chat.completion.chunk` events: text deltas as they come, tool calls by `index`, usage from the last chunk. */
export function streamAssembler(): StreamAssembler {
  let text = "";
  let reasoning = "";
  const slots = new Map<number, CallSlot>();
  let usage: WireUsage | undefined;
  let model: string | undefined;
  let id: string | undefined;
  let raw: string | undefined;
  let done = false;
  return {
    get finished() {
      return done;
    },
    push(ev: WireStreamEvent): string[] {
      const data = ev.data.trim();
      if (data === "[DONE]") {
        done = true;
        return [];
      }
      if (data === "") return [];
      const chunk = parseChunk(ev.data, "OpenAI stream chunk");
      const err = errorEnvelopeMessage(chunk);
      if (err !== undefined) throw new WireStreamError(`OpenAI stream reported an error: ${err}`);
      model = str(chunk.model) ?? model;
      id = str(chunk.id) ?? id;
      if (isDict(chunk.usage)) usage = decodeUsage(chunk.usage);
      const choice: unknown = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
      if (!isDict(choice)) return [];
      raw = str(choice.finish_reason) ?? raw;
      const delta = choice.delta;
      if (!isDict(delta)) return [];
      const out: string[] = [];
      if (typeof delta.content === "string" && delta.content !== "") {
        text += delta.content;
        out.push(delta.content);
      }
      const r = str(delta.reasoning_content) ?? str(delta.reasoning);
      if (r !== undefined) reasoning += r;
      arr(delta.tool_calls).forEach((c, pos) => {
        if (!isDict(c)) return;
        // Some compatible servers omit `index`; fall back to the position in this chunk.
        const index = typeof c.index === "number" ? c.index : pos;
        const slot = slots.get(index) ?? { id: "", name: "", args: "" };
        slots.set(index, slot);
        if (typeof c.id === "string" && c.id !== "") slot.id = c.id;
        if (isDict(c.function)) {
          if (typeof c.function.name === "string") slot.name += c.function.name;
          if (typeof c.function.arguments === "string") slot.args += c.function.arguments;
        }
      });
      return out;
    },
    incomplete() {
      // Servers that omit [DONE] still end cleanly after a finish_reason; anything else was cut off.
      return done || raw !== undefined ? undefined : "OpenAI stream ended before [DONE] (connection closed mid-reply)";
    },
    result(): WireResponse {
      const parts: WirePart[] = [];
      if (reasoning !== "") parts.push({ type: "reasoning", text: reasoning });
      if (text !== "") parts.push({ type: "text", text });
      for (const [index, s] of [...slots.entries()].sort((a, b) => a[0] - b[0])) {
        if (s.id === "") throw new WireShapeError(`OpenAI stream: tool call at index ${index} has no id`);
        if (s.name === "") throw new WireShapeError(`OpenAI stream: tool call at index ${index} has no function name`);
        parts.push({ type: "tool_call", call: { id: s.id, name: s.name, arguments: s.args, input: argumentsValue(s.args) } });
      }
      const rest: ReplyFields = {};
      if (id !== undefined) rest.id = id;
      if (model !== undefined) rest.model = model;
      if (usage !== undefined) rest.usage = usage;
      if (raw !== undefined) rest.rawFinishReason = raw;
      const finish = replyFinish(raw, slots.size > 0);
      if (finish !== undefined) rest.finish = finish;
      return responseFromParts(parts, rest);
    },
  };
}

function usageBody(u: WireUsage | undefined): JsonObject {
  const input = u?.inputTokens ?? 0;
  const output = u?.outputTokens ?? 0;
  const body: JsonObject = { prompt_tokens: input, completion_tokens: output, total_tokens: u?.totalTokens ?? input + output };
  if (u?.cacheReadTokens !== undefined) body.prompt_tokens_details = { cached_tokens: u.cacheReadTokens };
  if (u?.reasoningTokens !== undefined) body.completion_tokens_details = { reasoning_tokens: u.reasoningTokens };
  return body;
}

function finishWire(r: WireResponse): string {
  return finishOnWire(r, FINISH_WIRE);
}

export function encodeResponse(r: WireResponse): JsonObject {
  const msg: JsonObject = { role: "assistant", content: r.text !== "" || r.toolCalls.length === 0 ? r.text : null };
  if (r.toolCalls.length > 0) msg.tool_calls = r.toolCalls.map(callEntry);
  return {
    id: r.id ?? "chatcmpl-0",
    object: "chat.completion",
    model: r.model ?? "",
    choices: [{ index: 0, message: msg, finish_reason: finishWire(r) }],
    usage: usageBody(r.usage),
  };
}

export function encodeStream(r: WireResponse): WireStreamEvent[] {
  const base = { id: r.id ?? "chatcmpl-0", object: "chat.completion.chunk", model: r.model ?? "" };
  const chunk = (choice: JsonObject): WireStreamEvent => ({ data: JSON.stringify({ ...base, choices: [{ index: 0, ...choice }] }) });
  const out: WireStreamEvent[] = [chunk({ delta: { role: "assistant", content: "" }, finish_reason: null })];
  for (let i = 0; i < r.text.length; i += 8) out.push(chunk({ delta: { content: r.text.slice(i, i + 8) }, finish_reason: null }));
  r.toolCalls.forEach((c, i) => {
    out.push(
      chunk({
        delta: { tool_calls: [{ index: i, id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } }] },
        finish_reason: null,
      }),
    );
  });
  out.push(chunk({ delta: {}, finish_reason: finishWire(r) }));
  out.push({ data: JSON.stringify({ ...base, choices: [], usage: usageBody(r.usage) }) });
  out.push({ data: "[DONE]" });
  return out;
}
