import type { Json, JsonObject } from "../events/json.js";
import { recurringDecoder } from "./recurring-decode.js";
import { WireShapeError, WireStreamError } from "./errors.js";
import { finishOnWire, replyFinish } from "./finish.js";
import {
  message,
  missingListReply,
  notAnObjectReply,
  replyIds,
  responseFromParts,
  type ReplyFields,
  resultText,
  textOfParts,
} from "./messages.js";
import {
  argumentsText,
  argumentsValue,
  arr,
  asObject,
  errorEnvelopeMessage,
  isDict,
  kindOf,
  nonEmptyStr,
  num,
  parseChunk,
  partsText,
  str,
  tokens,
} from "./read.js";
import type { Dict } from "./read.js";
import { joinUrl } from "./urls.js";
import { buildUsage, detail, onlyKey } from "./usage.js";
import { settingsOf, stopList, toolChoiceFrom, toolDefFrom, withoutKeys } from "./request-common.js";
import type {
  EncodeRequestOptions,
  FinishKind,
  StreamAssembler,
  WireCodec,
  WireMessage,
  WirePart,
  WireRequest,
  WireResponse,
  WireStreamEvent,
  WireToolCall,
  WireToolChoice,
  WireToolDef,
  WireToolResult,
  WireUsage,
} from "./types.js";

/** OpenAI Chat Completions (`POST /chat/completions`). */

const SYSTEM_ROLES = new Set(["system", "developer"]);
const TOOL_ROLES = new Set(["tool", "function"]);
const FINISH_WIRE: Record<FinishKind, string> = {
  stop: "stop",
  length: "length",
  tool_calls: "tool_calls",
  content_filter: "content_filter",
};

const CALL_KEYS = new Set(["id", "type", "name", "function", "arguments", "input"]);

// `list[index]` names the entry in error messages: built only when one is thrown.
function toolCall(raw: Dict, list: string, index: number, strict: boolean): WireToolCall | undefined {
  const id = nonEmptyStr(raw.id);
  if (strict && id === undefined) throw new WireShapeError(`OpenAI reply: ${list}[${index}] has no id`);
  // Lenient readers also take the flat `{id, name, arguments}` entries some producers record.
  const fn = isDict(raw.function) ? raw.function : strict ? undefined : raw;
  if (fn === undefined) throw new WireShapeError(`OpenAI reply: ${list}[${index}] has no function object`);
  const name = nonEmptyStr(fn.name);
  if (strict && name === undefined) throw new WireShapeError(`OpenAI reply: ${list}[${index}].function has no name`);
  // Some compatible servers send the arguments as an object rather than JSON text.
  const args = fn.arguments ?? (fn === raw ? raw.input : undefined);
  const call: WireToolCall = { id: id ?? "", name: name ?? "", arguments: argumentsText(args), input: argumentsValue(args) };
  let extra: JsonObject | undefined;
  for (const k of Object.keys(raw)) if (!CALL_KEYS.has(k)) (extra ??= {})[k] = raw[k] as Json;
  if (extra !== undefined) call.extra = extra;
  return call;
}

function contentParts(content: unknown): WirePart[] {
  if (typeof content === "string") return content === "" ? [] : [{ type: "text", text: content }];
  const parts: WirePart[] = [];
  for (const p of arr(content)) {
    if (typeof p === "string") parts.push({ type: "text", text: p });
    else if (isDict(p) && (p.type === "text" || p.type === undefined) && typeof p.text === "string")
      parts.push({ type: "text", text: p.text });
    else if (isDict(p) && p.type === "refusal" && typeof p.refusal === "string") parts.push({ type: "text", text: p.refusal });
    else if (p !== null && p !== undefined) parts.push({ type: "media", raw: p as Json });
  }
  return parts;
}

function decodeMessage(m: unknown): WireMessage {
  if (!isDict(m)) return message("user", [], null);
  const role = str(m.role) ?? "user";
  const content = (m.content ?? null) as Json;
  if (SYSTEM_ROLES.has(role)) return message("system", contentParts(content), content);
  if (TOOL_ROLES.has(role)) {
    const id = str(m.tool_call_id) ?? str(m.id) ?? str(m.name) ?? "";
    const part: WirePart = { type: "tool_result", toolCallId: id, output: content, text: partsText(content, "\n") };
    if (typeof m.name === "string") part.name = m.name;
    return message("tool", [part], content);
  }
  const parts = contentParts(content);
  const calls = arr(m.tool_calls);
  for (let i = 0; i < calls.length; i++) {
    const c = calls[i];
    const call = isDict(c) ? toolCall(c, "tool_calls", i, false) : undefined;
    if (call) parts.push({ type: "tool_call", call });
  }
  return message(role === "assistant" ? "assistant" : "user", parts, content);
}

/** Transcript messages the loop froze are decoded once per run (see recurring-decode.ts). */
const recurringDecodeMessage = recurringDecoder(decodeMessage);

function decodeRequest(body: Json): WireRequest {
  const b = asObject(body);
  const req: WireRequest = {
    messages: arr(b.messages).map((m) => recurringDecodeMessage(m)),
    tools: arr(b.tools)
      .map(toolDefFrom)
      .filter((t): t is WireToolDef => t !== undefined),
    settings: settingsOf(b, {
      maxTokens: num(b.max_completion_tokens) ?? num(b.max_tokens),
      temperature: num(b.temperature),
      topP: num(b.top_p),
      topK: num(b.top_k),
      stop: stopList(b.stop),
      seed: num(b.seed),
      frequencyPenalty: num(b.frequency_penalty),
      presencePenalty: num(b.presence_penalty),
      choiceCount: num(b.n),
      reasoningEffort: str(b.reasoning_effort) ?? (isDict(b.reasoning) ? str(b.reasoning.effort) : undefined),
    }),
    parameters: withoutKeys(b, ["messages", "tools", "system"]),
  };
  if (typeof b.model === "string") req.model = b.model;
  const choice = toolChoiceFrom(b.tool_choice);
  if (choice !== undefined) req.toolChoice = choice;
  return req;
}

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

function decodeResponse(body: unknown, strict = false): WireResponse {
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
function streamAssembler(): StreamAssembler {
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

function toolEntries(tools: readonly WireToolDef[]): JsonObject[] {
  return tools.map((t) => {
    const fn: JsonObject = { name: t.name };
    if (t.description !== undefined) fn.description = t.description;
    fn.parameters = t.inputSchema;
    return { type: "function", function: fn };
  });
}

function encodeToolChoice(choice: WireToolChoice): Json {
  return typeof choice === "string" ? choice : { type: "function", function: { name: choice.name } };
}

function encodeRequest(o: EncodeRequestOptions): JsonObject {
  const body: JsonObject = { model: o.model, messages: [...o.messages] };
  if (o.tools.length > 0) {
    body.tools = toolEntries(o.tools);
    body.tool_choice = o.toolChoice !== undefined ? encodeToolChoice(o.toolChoice) : "auto";
  } else if (o.toolChoice !== undefined) {
    body.tool_choice = encodeToolChoice(o.toolChoice);
  }
  if (o.maxTokens !== undefined && o.maxTokens > 0) body.max_tokens = o.maxTokens;
  if (o.stream === true) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  return body;
}

function callEntry(c: WireToolCall): JsonObject {
  return { id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } };
}

function encodeMessages(messages: readonly WireMessage[]): Json[] {
  const out: Json[] = [];
  for (const m of messages) {
    if (m.role === "tool") {
      for (const p of m.parts)
        if (p.type === "tool_result")
          out.push({ role: "tool", tool_call_id: p.toolCallId, content: p.text !== "" ? p.text : resultText(p.output) });
      continue;
    }
    if (m.role === "assistant") {
      const calls = m.parts.flatMap((p) => (p.type === "tool_call" ? [callEntry(p.call)] : []));
      const msg: JsonObject = { role: "assistant", content: textOfParts(m.parts, "") };
      if (calls.length > 0) msg.tool_calls = calls;
      out.push(msg);
      continue;
    }
    out.push({ role: m.role, content: m.text });
  }
  return out;
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

function encodeResponse(r: WireResponse): JsonObject {
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

function encodeStream(r: WireResponse): WireStreamEvent[] {
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

export const openaiChatCodec: WireCodec = {
  dialect: "openai",
  schema: { name: "openai/chat-completions", version: "1" },
  eventName: "openai.chat_completions",
  provider: "openai",
  systemInTranscript: true,
  endpoint: (baseUrl) => joinUrl(baseUrl, "/chat/completions"),
  authHeaders: (apiKey): Record<string, string> => (apiKey ? { Authorization: `Bearer ${apiKey}` } : {}),
  decodeRequest,
  decodeMessages: (messages) => messages.map(decodeMessage),
  decodeResponse,
  streamAssembler,
  looksLikeRequest: (b) => Array.isArray(b.messages),
  looksLikeResponse: (b) =>
    Array.isArray(b.choices) || (b.choices === undefined && (typeof b.content === "string" || Array.isArray(b.tool_calls))),
  encodeRequest,
  encodeMessages,
  userMessage: (text) => ({ role: "user", content: text }),
  assistantMessages: (r) => encodeMessages([{ role: "assistant", parts: r.parts, text: r.text, content: null }]),
  toolResultMessages: (results: readonly WireToolResult[]) =>
    // isError is not transmitted in this dialect.
    results.map((r) => ({ role: "tool", tool_call_id: r.id, content: r.output })),
  encodeResponse,
  encodeStream,
};
