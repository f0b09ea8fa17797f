import type { Json, JsonObject } from "../events/json.js";
import { WireShapeError, WireStreamError } from "./errors.js";
import { replyFinish } from "./finish.js";
import { missingListReply, notAnObjectReply, replyIds, responseFromParts } from "./messages.js";
import { arr, asObject, errorEnvelopeMessage, isDict, kindOf, nonEmptyStr, parseChunk, partsText, preview, str, tokens } from "./read.js";
import type { Dict } from "./read.js";
import { buildUsage, detail, onlyKey } from "./usage.js";
import type { StreamAssembler, WirePart, WireResponse, WireStreamEvent, WireUsage } from "./types.js";
import { callItem, contentParts, functionCall, messageItem, reasoningText } from "./openai-responses-request.js";

/** OpenAI Responses replies: response bodies and streams, decoded, assembled and encoded. */

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

export function decodeResponse(body: unknown, strict = false): WireResponse {
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
export function streamAssembler(): StreamAssembler {
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

export function outputItems(r: WireResponse): Json[] {
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

export function encodeResponse(r: WireResponse): JsonObject {
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

export function encodeStream(r: WireResponse): WireStreamEvent[] {
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
