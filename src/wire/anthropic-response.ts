import type { Json, JsonObject } from "../events/json.js";
import { callBlock, toolUse } from "./anthropic-request.js";
import { WireShapeError, WireStreamError } from "./errors.js";
import { finishOnWire, replyFinish } from "./finish.js";
import { missingListReply, notAnObjectReply, replyIds, responseFromParts, type ReplyFields } from "./messages.js";
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
  preview,
  str,
  tokens,
} from "./read.js";
import type { Dict } from "./read.js";
import { buildUsage } from "./usage.js";
import type { FinishKind, StreamAssembler, WirePart, WireResponse, WireStreamEvent, WireUsage } from "./types.js";

/** Anthropic Messages replies: decoded from a body or a stream of events, encoded as either. */

/** Block types a reply keeps in the transcript; thinking blocks must be sent back on tool turns. */
const KEPT_BLOCK_TYPES: ReadonlySet<string> = new Set(["text", "tool_use", "thinking", "redacted_thinking"]);
const FINISH_WIRE: Record<FinishKind, string> = {
  stop: "end_turn",
  length: "max_tokens",
  tool_calls: "tool_use",
  content_filter: "refusal",
};

/** Anthropic's `input_tokens` excludes cache traffic; WireUsage input counts all of it. */
function decodeUsage(raw: unknown): WireUsage | undefined {
  if (!isDict(raw)) return undefined;
  const input = tokens(raw.input_tokens);
  const read = tokens(raw.cache_read_input_tokens);
  const write = tokens(raw.cache_creation_input_tokens);
  const anyInput = input !== undefined || read !== undefined || write !== undefined;
  return buildUsage(
    raw,
    {
      input: anyInput ? (input ?? 0) + (read ?? 0) + (write ?? 0) : undefined,
      output: tokens(raw.output_tokens),
      cacheRead: read,
      cacheWrite: write,
    },
    ["input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"],
  );
}

/** A reply from its content blocks; `native` keeps the blocks the transcript must carry back verbatim. */
function fromBlocks(blocks: readonly unknown[], rest: ReplyFields, strict: boolean): WireResponse {
  const parts: WirePart[] = [];
  const native: Json[] = [];
  blocks.forEach((block, i) => {
    if (!isDict(block)) {
      if (strict) throw new WireShapeError(`Anthropic reply: content[${i}] is ${kindOf(block)}, expected an object`);
      return;
    }
    const type = str(block.type);
    if (type === "tool_use") {
      if (strict && nonEmptyStr(block.id) === undefined) throw new WireShapeError(`Anthropic reply: content[${i}] (tool_use) has no id`);
      if (strict && nonEmptyStr(block.name) === undefined)
        throw new WireShapeError(`Anthropic reply: content[${i}] (tool_use) has no name`);
      const call = toolUse(block);
      parts.push({ type: "tool_call", call });
      native.push({ type: "tool_use", id: call.id, name: call.name, input: call.input });
      return;
    }
    if (type === "text") {
      const text = str(block.text) ?? "";
      parts.push({ type: "text", text });
      // The API rejects empty text blocks when the transcript is sent back.
      if (text !== "") native.push(block as JsonObject);
      return;
    }
    if (type === "thinking") parts.push({ type: "reasoning", text: str(block.thinking) ?? "" });
    if (type !== undefined && KEPT_BLOCK_TYPES.has(type)) native.push(block as JsonObject);
  });
  return { ...responseFromParts(parts, rest), native };
}

export function decodeResponse(body: unknown, strict = false): WireResponse {
  if (!isDict(body)) {
    if (strict) throw notAnObjectReply("Anthropic", body);
    return responseFromParts([], {});
  }
  const rest = replyIds(body.id, body.model);
  const usage = decodeUsage(body.usage);
  if (usage) rest.usage = usage;
  const content = body.content;
  if (!Array.isArray(content) && strict) throw missingListReply("Anthropic", "content", body);
  const raw = str(body.stop_reason);
  if (raw !== undefined) rest.rawFinishReason = raw;
  const response = fromBlocks(arr(content), rest, strict);
  const finish = replyFinish(raw, response.toolCalls.length > 0);
  if (finish !== undefined) response.finish = finish;
  return response;
}

interface BlockSlot {
  block: Dict;
  /** accumulated `input_json_delta` text of a tool_use block */
  json: string;
}

/** `message_start`, `content_block_start|delta|stop`, `message_delta`, `message_stop`. */
export function streamAssembler(): StreamAssembler {
  const slots = new Map<number, BlockSlot>();
  let model: string | undefined;
  let id: string | undefined;
  let usageRaw: Dict = {};
  let raw: string | undefined;
  let stopped = false;
  return {
    get finished() {
      return stopped;
    },
    push(ev: WireStreamEvent): string[] {
      if (ev.data.trim() === "") return [];
      const data = parseChunk(ev.data, `Anthropic stream event${ev.event ? ` "${ev.event}"` : ""}`);
      const type = str(data.type) ?? ev.event;
      if (type === "error")
        throw new WireStreamError(`Anthropic stream reported an error: ${errorEnvelopeMessage(data) ?? preview(ev.data)}`);
      if (type === "message_start" && isDict(data.message)) {
        model = str(data.message.model) ?? model;
        id = str(data.message.id) ?? id;
        if (isDict(data.message.usage)) usageRaw = { ...usageRaw, ...data.message.usage };
      } else if (type === "content_block_start" && isDict(data.content_block)) {
        slots.set(tokens(data.index) ?? 0, { block: { ...data.content_block }, json: "" });
      } else if (type === "content_block_delta" && isDict(data.delta)) {
        const slot = slots.get(tokens(data.index) ?? 0);
        const delta = data.delta;
        if (slot === undefined) return [];
        if (delta.type === "text_delta" && typeof delta.text === "string") {
          slot.block.text = (str(slot.block.text) ?? "") + delta.text;
          return delta.text !== "" ? [delta.text] : [];
        }
        if (delta.type === "input_json_delta" && typeof delta.partial_json === "string") slot.json += delta.partial_json;
        else if (delta.type === "thinking_delta" && typeof delta.thinking === "string")
          slot.block.thinking = (str(slot.block.thinking) ?? "") + delta.thinking;
        else if (delta.type === "signature_delta" && typeof delta.signature === "string")
          slot.block.signature = (str(slot.block.signature) ?? "") + delta.signature;
      } else if (type === "message_delta") {
        if (isDict(data.delta)) raw = str(data.delta.stop_reason) ?? raw;
        // message_delta usage is cumulative; keep message_start's input counts unless restated.
        if (isDict(data.usage)) for (const [k, v] of Object.entries(data.usage)) if (num(v) !== undefined) usageRaw[k] = v;
      } else if (type === "message_stop") {
        stopped = true;
      }
      return [];
    },
    incomplete: () => (stopped ? undefined : "Anthropic stream ended before message_stop (connection closed mid-reply)"),
    result(): WireResponse {
      const blocks: Dict[] = [];
      for (const [index, slot] of [...slots.entries()].sort((a, b) => a[0] - b[0])) {
        const block = slot.block;
        if (block.type === "tool_use") {
          if ((str(block.id) ?? "") === "") throw new WireShapeError(`Anthropic stream: tool_use block ${index} has no id`);
          if ((str(block.name) ?? "") === "") throw new WireShapeError(`Anthropic stream: tool_use block ${index} has no name`);
          if (slot.json.trim() !== "") {
            const input = argumentsValue(slot.json);
            block.input = typeof input === "string" ? {} : input;
          }
          block.input ??= {};
        }
        blocks.push(block);
      }
      const rest: ReplyFields = {};
      if (id !== undefined) rest.id = id;
      if (model !== undefined) rest.model = model;
      const usage = decodeUsage(usageRaw);
      if (usage) rest.usage = usage;
      if (raw !== undefined) rest.rawFinishReason = raw;
      const response = fromBlocks(blocks, rest, false);
      const finish = replyFinish(raw, response.toolCalls.length > 0);
      if (finish !== undefined) response.finish = finish;
      return response;
    },
  };
}

export function replyBlocks(r: WireResponse): Json[] {
  if (r.native !== undefined) return r.native;
  const blocks: Json[] = [];
  for (const p of r.parts) {
    if (p.type === "text" && p.text !== "") blocks.push({ type: "text", text: p.text });
    else if (p.type === "tool_call") blocks.push(callBlock(p.call));
  }
  return blocks;
}

function usageBody(u: WireUsage | undefined): JsonObject {
  const read = u?.cacheReadTokens;
  const write = u?.cacheWriteTokens;
  const body: JsonObject = {
    input_tokens: Math.max(0, (u?.inputTokens ?? 0) - (read ?? 0) - (write ?? 0)),
    output_tokens: u?.outputTokens ?? 0,
  };
  if (read !== undefined) body.cache_read_input_tokens = read;
  if (write !== undefined) body.cache_creation_input_tokens = write;
  return body;
}

function finishWire(r: WireResponse): string {
  return finishOnWire(r, FINISH_WIRE);
}

export function encodeResponse(r: WireResponse): JsonObject {
  return {
    id: r.id ?? "msg_0",
    type: "message",
    role: "assistant",
    model: r.model ?? "",
    content: replyBlocks(r),
    stop_reason: finishWire(r),
    stop_sequence: null,
    usage: usageBody(r.usage),
  };
}

export function encodeStream(r: WireResponse): WireStreamEvent[] {
  const ev = (type: string, data: JsonObject): WireStreamEvent => ({ event: type, data: JSON.stringify({ type, ...data }) });
  const usage = usageBody(r.usage);
  const startUsage: JsonObject = { ...usage, output_tokens: 0 };
  const out = [
    ev("message_start", {
      message: {
        id: r.id ?? "msg_0",
        type: "message",
        role: "assistant",
        model: r.model ?? "",
        content: [],
        stop_reason: null,
        usage: startUsage,
      },
    }),
  ];
  replyBlocks(r).forEach((block, index) => {
    const b = asObject(block);
    if (b.type === "text") {
      out.push(ev("content_block_start", { index, content_block: { type: "text", text: "" } }));
      out.push(ev("content_block_delta", { index, delta: { type: "text_delta", text: str(b.text) ?? "" } }));
    } else if (b.type === "tool_use") {
      out.push(ev("content_block_start", { index, content_block: { type: "tool_use", id: b.id ?? "", name: b.name ?? "", input: {} } }));
      out.push(ev("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: argumentsText(b.input ?? {}) } }));
    } else if (b.type === "thinking") {
      out.push(ev("content_block_start", { index, content_block: { type: "thinking", thinking: "" } }));
      out.push(ev("content_block_delta", { index, delta: { type: "thinking_delta", thinking: str(b.thinking) ?? "" } }));
      if (typeof b.signature === "string")
        out.push(ev("content_block_delta", { index, delta: { type: "signature_delta", signature: b.signature } }));
    } else {
      out.push(ev("content_block_start", { index, content_block: b }));
    }
    out.push(ev("content_block_stop", { index }));
  });
  out.push(
    ev("message_delta", { delta: { stop_reason: finishWire(r), stop_sequence: null }, usage: { output_tokens: usage.output_tokens ?? 0 } }),
  );
  out.push(ev("message_stop", {}));
  return out;
}
