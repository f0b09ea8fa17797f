import type { Json, JsonObject } from "../events/json.js";
import { recurringDecoder } from "./recurring-decode.js";
import { WireShapeError } from "./errors.js";
import { message, resultText, textOfParts } from "./messages.js";
import { argumentsText, argumentsValue, arr, asObject, isDict, nonEmptyStr, num, partsText, str } from "./read.js";
import type { Dict } from "./read.js";
import { settingsOf, stopList, toolChoiceFrom, toolDefFrom, withoutKeys } from "./request-common.js";
import type { EncodeRequestOptions, WireMessage, WirePart, WireRequest, WireToolCall, WireToolChoice, WireToolDef } from "./types.js";

/** OpenAI Chat Completions requests: transcript messages and the request body, decoded and encoded. */

const SYSTEM_ROLES = new Set(["system", "developer"]);
const TOOL_ROLES = new Set(["tool", "function"]);

const CALL_KEYS = new Set(["id", "type", "name", "function", "arguments", "input"]);

// `list[index]` names the entry in error messages: built only when one is thrown.
export function toolCall(raw: Dict, list: string, index: number, strict: boolean): WireToolCall | undefined {
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

export function contentParts(content: unknown): WirePart[] {
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

export function decodeMessage(m: unknown): WireMessage {
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

export function decodeRequest(body: Json): WireRequest {
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

export function encodeRequest(o: EncodeRequestOptions): JsonObject {
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

export function callEntry(c: WireToolCall): JsonObject {
  return { id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } };
}

export function encodeMessages(messages: readonly WireMessage[]): Json[] {
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
