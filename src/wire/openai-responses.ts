import type { Json, JsonObject } from "../events/json.js";
import { recurringDecoder } from "./recurring-decode.js";
import { WireShapeError, WireStreamError } from "./errors.js";
import { replyFinish } from "./finish.js";
import { message, missingListReply, notAnObjectReply, replyIds, responseFromParts, resultText, textOfParts } from "./messages.js";
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
  preview,
  str,
  tokens,
} from "./read.js";
import type { Dict } from "./read.js";
import { settingsOf, toolChoiceFrom, toolDefFrom, withoutKeys } from "./request-common.js";
import { joinUrl } from "./urls.js";
import { buildUsage, detail, onlyKey } from "./usage.js";
import type {
  EncodeRequestOptions,
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

/** OpenAI Responses (`POST /responses`): input and output items, function calls and outputs, reasoning items. */

const SYSTEM_ROLES = new Set(["system", "developer"]);

function contentParts(content: unknown): WirePart[] {
  if (typeof content === "string") return content === "" ? [] : [{ type: "text", text: content }];
  const parts: WirePart[] = [];
  for (const p of arr(content)) {
    if (!isDict(p)) continue;
    if ((p.type === "input_text" || p.type === "output_text" || p.type === "text") && typeof p.text === "string")
      parts.push({ type: "text", text: p.text });
    else if (p.type === "refusal" && typeof p.refusal === "string") parts.push({ type: "text", text: p.refusal });
    else parts.push({ type: "media", raw: p as Json });
  }
  return parts;
}

function reasoningText(item: Dict): string {
  const texts = [...arr(item.summary), ...arr(item.content)].flatMap((s) => (isDict(s) && typeof s.text === "string" ? [s.text] : []));
  return texts.join("\n");
}

function functionCall(item: Dict, where: string, strict: boolean): WireToolCall {
  const id = nonEmptyStr(item.call_id) ?? nonEmptyStr(item.id);
  if (strict && id === undefined) throw new WireShapeError(`OpenAI Responses reply: ${where} (function_call) has no call_id`);
  const name = nonEmptyStr(item.name);
  if (strict && name === undefined) throw new WireShapeError(`OpenAI Responses reply: ${where} (function_call) has no name`);
  return { id: id ?? "", name: name ?? "", arguments: argumentsText(item.arguments), input: argumentsValue(item.arguments) };
}

/** One input item as a message: message items by role, a function call as an assistant entry, its output as a tool entry. */
function decodeItem(item: unknown): WireMessage {
  if (typeof item === "string") return message("user", [{ type: "text", text: item }], item);
  if (!isDict(item)) return message("user", [], null);
  const type = str(item.type) ?? "message";
  if (type === "message") {
    const role = str(item.role) ?? "user";
    const content = (item.content ?? null) as Json;
    if (SYSTEM_ROLES.has(role)) return message("system", contentParts(content), content);
    return message(role === "assistant" ? "assistant" : "user", contentParts(content), content);
  }
  if (type === "function_call") return message("assistant", [{ type: "tool_call", call: functionCall(item, "input", false) }], null);
  if (type === "function_call_output") {
    const output = (item.output ?? null) as Json;
    return message(
      "tool",
      [
        {
          type: "tool_result",
          toolCallId: str(item.call_id) ?? "",
          output,
          text: typeof output === "string" ? output : partsText(output, "\n"),
        },
      ],
      output,
    );
  }
  if (type === "reasoning") return message("assistant", [{ type: "reasoning", text: reasoningText(item) }], null);
  return message("assistant", [{ type: "media", raw: item as Json }], null);
}

/** Transcript messages the loop froze are decoded once per run (see recurring-decode.ts). */
const recurringDecodeItem = recurringDecoder(decodeItem);

function decodeRequest(body: Json): WireRequest {
  const b = asObject(body);
  const input = b.input;
  const req: WireRequest = {
    messages: typeof input === "string" ? [decodeItem(input)] : arr(input).map((m) => recurringDecodeItem(m)),
    tools: arr(b.tools)
      .map(toolDefFrom)
      .filter((t): t is WireToolDef => t !== undefined),
    settings: settingsOf(b, {
      maxTokens: num(b.max_output_tokens),
      temperature: num(b.temperature),
      topP: num(b.top_p),
      reasoningEffort: isDict(b.reasoning) ? str(b.reasoning.effort) : undefined,
    }),
    parameters: withoutKeys(b, ["input", "tools", "instructions"]),
  };
  if (typeof b.model === "string") req.model = b.model;
  const system = partsText(b.instructions, "\n");
  if (system !== "") req.system = system;
  const choice = toolChoiceFrom(b.tool_choice);
  if (choice !== undefined) req.toolChoice = choice;
  return req;
}

function decodeUsage(raw: unknown): WireUsage | undefined {
  if (!isDict(raw)) return undefined;
  const consumed = ["input_tokens", "output_tokens"];
  if (onlyKey(raw, "input_tokens_details", "cached_tokens")) consumed.push("input_tokens_details");
  return buildUsage(
    raw,
    {
      input: tokens(raw.input_tokens),
      output: tokens(raw.output_tokens),
      total: tokens(raw.total_tokens),
      cacheRead: detail(raw, "input_tokens_details", "cached_tokens"),
      reasoning: detail(raw, "output_tokens_details", "reasoning_tokens"),
    },
    consumed,
  );
}

function outputParts(output: readonly unknown[], strict: boolean): WirePart[] {
  const parts: WirePart[] = [];
  output.forEach((item, i) => {
    if (!isDict(item)) {
      if (strict) throw new WireShapeError(`OpenAI Responses reply: output[${i}] is ${kindOf(item)}, expected an object`);
      return;
    }
    if (item.type === "message") parts.push(...contentParts(item.content).filter((p) => p.type === "text"));
    else if (item.type === "function_call") parts.push({ type: "tool_call", call: functionCall(item, `output[${i}]`, strict) });
    else if (item.type === "reasoning") {
      const text = reasoningText(item);
      if (text !== "") parts.push({ type: "reasoning", text });
    }
  });
  return parts;
}

/** `completed` ends normally; `incomplete` names why (`max_output_tokens`, `content_filter`). */
function finishOf(body: Dict): string | undefined {
  const status = str(body.status);
  if (status === "incomplete" && isDict(body.incomplete_details)) return str(body.incomplete_details.reason) ?? status;
  return status;
}

function decodeResponse(body: unknown, strict = false): WireResponse {
  if (!isDict(body)) {
    if (strict) throw notAnObjectReply("OpenAI Responses", body);
    return responseFromParts([], {});
  }
  const output = body.output;
  if (strict && (!Array.isArray(output) || body.status === "failed")) throw missingListReply("OpenAI Responses", "output", body);
  const rest = replyIds(body.id, body.model);
  const usage = decodeUsage(body.usage);
  if (usage) rest.usage = usage;
  const raw = finishOf(body);
  if (raw !== undefined) rest.rawFinishReason = raw;
  const parts = outputParts(arr(output), strict);
  const finish =
    replyFinish(
      raw,
      parts.some((p) => p.type === "tool_call"),
    ) ?? (raw === "incomplete" ? "length" : undefined);
  if (finish !== undefined) rest.finish = finish;
  return { ...responseFromParts(parts, rest), native: arr(output) as Json[] };
}

/** `response.*` events: text from `output_text.delta`, items from `output_item.done`, the whole reply from `response.completed`. */
function streamAssembler(): StreamAssembler {
  const items = new Map<number, Dict>();
  let final: Dict | undefined;
  let finished = false;
  return {
    get finished() {
      return finished;
    },
    push(ev: WireStreamEvent): string[] {
      if (ev.data.trim() === "" || ev.data.trim() === "[DONE]") return [];
      const data = parseChunk(ev.data, `OpenAI Responses stream event${ev.event ? ` "${ev.event}"` : ""}`);
      const type = str(data.type) ?? ev.event;
      if (type === "error")
        throw new WireStreamError(
          `OpenAI Responses stream reported an error: ${str(data.message) ?? errorEnvelopeMessage(data) ?? preview(ev.data)}`,
        );
      if (type === "response.failed") {
        throw new WireStreamError(`OpenAI Responses stream reported an error: ${errorEnvelopeMessage(data.response) ?? "response failed"}`);
      }
      const index = tokens(data.output_index) ?? 0;
      if ((type === "response.output_item.added" || type === "response.output_item.done") && isDict(data.item)) {
        items.set(index, { ...data.item });
      } else if (type === "response.output_text.delta" && typeof data.delta === "string") {
        const item = items.get(index) ?? { type: "message", role: "assistant", content: [] };
        items.set(index, item);
        const content = arr(item.content) as Dict[];
        const last = content[content.length - 1];
        if (last && last.type === "output_text") last.text = (str(last.text) ?? "") + data.delta;
        else content.push({ type: "output_text", text: data.delta });
        item.content = content as Json[];
        return data.delta !== "" ? [data.delta] : [];
      } else if (type === "response.function_call_arguments.delta" && typeof data.delta === "string") {
        const item = items.get(index);
        if (item) item.arguments = (str(item.arguments) ?? "") + data.delta;
      } else if ((type === "response.completed" || type === "response.incomplete") && isDict(data.response)) {
        final = data.response;
        finished = true;
      }
      return [];
    },
    incomplete: () => (finished ? undefined : "OpenAI Responses stream ended before response.completed (connection closed mid-reply)"),
    result(): WireResponse {
      const body: Dict = { ...(final ?? {}) };
      if (!Array.isArray(body.output) || body.output.length === 0)
        body.output = [...items.entries()].sort((a, b) => a[0] - b[0]).map(([, item]) => item);
      arr(body.output).forEach((item, i) => {
        if (!isDict(item) || item.type !== "function_call") return;
        if (nonEmptyStr(item.call_id) === undefined)
          throw new WireShapeError(`OpenAI Responses stream: function_call item ${i} has no call_id`);
        if (nonEmptyStr(item.name) === undefined) throw new WireShapeError(`OpenAI Responses stream: function_call item ${i} has no name`);
      });
      return decodeResponse(body);
    },
  };
}

function toolEntries(tools: readonly WireToolDef[]): JsonObject[] {
  return tools.map((t) => {
    const entry: JsonObject = { type: "function", name: t.name };
    if (t.description !== undefined) entry.description = t.description;
    entry.parameters = t.inputSchema;
    return entry;
  });
}

function encodeToolChoice(choice: WireToolChoice): Json {
  return typeof choice === "string" ? choice : { type: "function", name: choice.name };
}

function encodeRequest(o: EncodeRequestOptions): JsonObject {
  const body: JsonObject = { model: o.model };
  if (o.system !== undefined && o.system !== "") body.instructions = o.system;
  body.input = [...o.messages];
  if (o.tools.length > 0) {
    body.tools = toolEntries(o.tools);
    body.tool_choice = o.toolChoice !== undefined ? encodeToolChoice(o.toolChoice) : "auto";
  } else if (o.toolChoice !== undefined) {
    body.tool_choice = encodeToolChoice(o.toolChoice);
  }
  if (o.maxTokens !== undefined && o.maxTokens > 0) body.max_output_tokens = o.maxTokens;
  if (o.stream === true) body.stream = true;
  return body;
}

function messageItem(text: string, id?: string): JsonObject {
  const item: JsonObject = { type: "message", role: "assistant", content: [{ type: "output_text", text, annotations: [] }] };
  if (id !== undefined) return { id, ...item, status: "completed" };
  return item;
}

function callItem(c: WireToolCall, id?: string): JsonObject {
  const item: JsonObject = { type: "function_call", call_id: c.id, name: c.name, arguments: c.arguments };
  if (id !== undefined) return { id, ...item, status: "completed" };
  return item;
}

/** System messages are dropped (the system prompt travels in `instructions`). */
function encodeMessages(messages: readonly WireMessage[]): Json[] {
  const out: Json[] = [];
  for (const m of messages) {
    if (m.role === "system") continue;
    if (m.role === "tool") {
      for (const p of m.parts)
        if (p.type === "tool_result")
          out.push({ type: "function_call_output", call_id: p.toolCallId, output: p.text !== "" ? p.text : resultText(p.output) });
    } else if (m.role === "assistant") {
      const text = textOfParts(m.parts, "");
      if (text !== "") out.push(messageItem(text));
      for (const p of m.parts) if (p.type === "tool_call") out.push(callItem(p.call));
    } else {
      out.push({ role: "user", content: textOfParts(m.parts, "") });
    }
  }
  return out;
}

function outputItems(r: WireResponse): Json[] {
  if (r.native !== undefined) return r.native;
  const out: Json[] = [];
  if (r.text !== "") out.push(messageItem(r.text, "msg_0"));
  r.toolCalls.forEach((c, i) => out.push(callItem(c, `fc_${i}`)));
  return out;
}

function usageBody(u: WireUsage | undefined): JsonObject {
  const input = u?.inputTokens ?? 0;
  const output = u?.outputTokens ?? 0;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: u?.cacheReadTokens ?? 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: u?.reasoningTokens ?? 0 },
    total_tokens: u?.totalTokens ?? input + output,
  };
}

function encodeResponse(r: WireResponse): JsonObject {
  const kind = r.finish ?? "stop";
  const incomplete = kind === "length" || kind === "content_filter";
  const body: JsonObject = {
    id: r.id ?? "resp_0",
    object: "response",
    created_at: 0,
    status: incomplete ? "incomplete" : "completed",
    model: r.model ?? "",
    output: outputItems(r),
    usage: usageBody(r.usage),
  };
  if (incomplete) body.incomplete_details = { reason: kind === "length" ? "max_output_tokens" : "content_filter" };
  return body;
}

function encodeStream(r: WireResponse): WireStreamEvent[] {
  const out: WireStreamEvent[] = [];
  let seq = 0;
  const ev = (type: string, data: JsonObject) => out.push({ event: type, data: JSON.stringify({ type, sequence_number: seq++, ...data }) });
  const full = encodeResponse(r);
  ev("response.created", { response: { ...full, status: "in_progress", output: [], usage: null } });
  arr(full.output).forEach((raw, output_index) => {
    const item = asObject(raw);
    if (item.type === "message") {
      const text = partsText(item.content, "");
      ev("response.output_item.added", { output_index, item: { ...item, status: "in_progress", content: [] } });
      ev("response.content_part.added", {
        output_index,
        item_id: item.id ?? "",
        content_index: 0,
        part: { type: "output_text", text: "", annotations: [] },
      });
      for (let i = 0; i < text.length; i += 8)
        ev("response.output_text.delta", { output_index, item_id: item.id ?? "", content_index: 0, delta: text.slice(i, i + 8) });
      ev("response.output_text.done", { output_index, item_id: item.id ?? "", content_index: 0, text });
    } else if (item.type === "function_call") {
      ev("response.output_item.added", { output_index, item: { ...item, status: "in_progress", arguments: "" } });
      ev("response.function_call_arguments.delta", { output_index, item_id: item.id ?? "", delta: str(item.arguments) ?? "" });
      ev("response.function_call_arguments.done", { output_index, item_id: item.id ?? "", arguments: str(item.arguments) ?? "" });
    } else {
      ev("response.output_item.added", { output_index, item });
    }
    ev("response.output_item.done", { output_index, item });
  });
  ev(full.status === "incomplete" ? "response.incomplete" : "response.completed", { response: full });
  return out;
}

export const openaiResponsesCodec: WireCodec = {
  dialect: "openai-responses",
  schema: { name: "openai/responses", version: "1" },
  eventName: "openai.responses",
  provider: "openai",
  systemInTranscript: false,
  endpoint: (baseUrl) => joinUrl(baseUrl, "/responses"),
  authHeaders: (apiKey): Record<string, string> => (apiKey ? { Authorization: `Bearer ${apiKey}` } : {}),
  decodeRequest,
  decodeMessages: (messages) => messages.map(decodeItem),
  decodeResponse,
  streamAssembler,
  looksLikeRequest: (b) => b.input !== undefined && b.messages === undefined && b.contents === undefined,
  looksLikeResponse: (b) => b.object === "response" || (Array.isArray(b.output) && b.choices === undefined),
  encodeRequest,
  encodeMessages,
  userMessage: (text) => ({ role: "user", content: text }),
  assistantMessages: outputItems,
  toolResultMessages: (results: readonly WireToolResult[]) =>
    // The Responses API has no error flag on a function output.
    results.map((r) => ({ type: "function_call_output", call_id: r.id, output: r.output })),
  encodeResponse,
  encodeStream,
};
