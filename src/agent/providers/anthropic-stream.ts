import type { Json, JsonObject } from "../../events/json.js";
import { anthropicAssistantMessage, anthropicUsage, KEPT_BLOCK_TYPES } from "./anthropic-shared.js";
import { ProviderConnectionError, ProviderResponseError, preview } from "./errors.js";
import { mapFinishReason } from "./finish-reason.js";
import { count, errorEnvelopeMessage, hasNumber, isDict, str } from "./shape.js";
import type { Dict } from "./shape.js";
import type { ParsedToolCall, ParsedTurn, SseEvent, StreamDelta, Usage } from "./types.js";

/** A content block being assembled from `content_block_*` events. */
interface BlockSlot {
  block: Dict;
  /** accumulated `input_json_delta` text of a tool_use block */
  json: string;
}

function parseEvent(ev: SseEvent): Dict {
  let data: unknown;
  try {
    data = JSON.parse(ev.data);
  } catch (cause) {
    throw new ProviderResponseError(`Anthropic stream event${ev.event ? ` "${ev.event}"` : ""} is not JSON: ${preview(ev.data)}`, { cause });
  }
  if (!isDict(data)) throw new ProviderResponseError(`Anthropic stream event is not a JSON object: ${preview(ev.data)}`);
  return data;
}

function finishToolUse(slot: BlockSlot, index: number): ParsedToolCall {
  const id = str(slot.block.id) ?? "";
  const name = str(slot.block.name) ?? "";
  if (id === "") throw new ProviderResponseError(`Anthropic stream: tool_use block ${index} has no id`);
  if (name === "") throw new ProviderResponseError(`Anthropic stream: tool_use block ${index} has no name`);
  let input: unknown = slot.block.input ?? {};
  if (slot.json.trim() !== "") {
    try {
      input = JSON.parse(slot.json);
    } catch {
      input = {};
    }
  }
  slot.block = { type: "tool_use", id, name, input: input as Json };
  return { id, name, args: isDict(input) ? input : {}, arguments: JSON.stringify(input) };
}

/**
 * Assembles an Anthropic Messages stream: `message_start`, `content_block_start|delta|stop`,
 * `message_delta`, `message_stop`. Text deltas are yielded as they come.
 */
export async function* parseAnthropicStream(events: AsyncIterable<SseEvent>): AsyncGenerator<StreamDelta, ParsedTurn> {
  const slots = new Map<number, BlockSlot>();
  let text = "";
  let model: string | undefined;
  let usageRaw: Dict = {};
  let rawFinishReason: string | undefined;
  let stopped = false;
  let first = true;

  for await (const ev of events) {
    if (ev.data.trim() === "") continue;
    const data = parseEvent(ev);
    const type = str(data.type) ?? ev.event;
    if (type === "error") {
      throw new ProviderResponseError(`Anthropic stream reported an error: ${errorEnvelopeMessage(data) ?? preview(ev.data)}`);
    }
    if (first) {
      first = false;
      yield { type: "first_chunk" };
    }
    if (type === "message_start" && isDict(data.message)) {
      model = str(data.message.model) ?? model;
      if (isDict(data.message.usage)) usageRaw = { ...usageRaw, ...data.message.usage };
    } else if (type === "content_block_start" && isDict(data.content_block)) {
      slots.set(count(data.index), { block: { ...data.content_block }, json: "" });
    } else if (type === "content_block_delta" && isDict(data.delta)) {
      const slot = slots.get(count(data.index));
      const delta = data.delta;
      if (slot === undefined) continue;
      if (delta.type === "text_delta" && typeof delta.text === "string") {
        slot.block.text = (str(slot.block.text) ?? "") + delta.text;
        text += delta.text;
        if (delta.text !== "") yield { type: "text", delta: delta.text };
      } else if (delta.type === "input_json_delta" && typeof delta.partial_json === "string") {
        slot.json += delta.partial_json;
      } else if (delta.type === "thinking_delta" && typeof delta.thinking === "string") {
        slot.block.thinking = (str(slot.block.thinking) ?? "") + delta.thinking;
      } else if (delta.type === "signature_delta" && typeof delta.signature === "string") {
        slot.block.signature = (str(slot.block.signature) ?? "") + delta.signature;
      }
    } else if (type === "message_delta") {
      if (isDict(data.delta)) rawFinishReason = str(data.delta.stop_reason) ?? rawFinishReason;
      // message_delta usage is cumulative; keep message_start's input counts unless restated.
      if (isDict(data.usage)) {
        for (const [k, v] of Object.entries(data.usage)) if (hasNumber(v)) usageRaw[k] = v;
      }
    } else if (type === "message_stop") {
      stopped = true;
      break;
    }
  }

  if (!stopped) throw new ProviderConnectionError("Anthropic stream ended before message_stop (connection closed mid-reply)");

  const toolCalls: ParsedToolCall[] = [];
  const kept: Json[] = [];
  for (const [index, slot] of [...slots.entries()].sort((a, b) => a[0] - b[0])) {
    const type = str(slot.block.type);
    if (type === "tool_use") toolCalls.push(finishToolUse(slot, index));
    if (type === undefined || !KEPT_BLOCK_TYPES.has(type)) continue;
    if (type === "text" && (str(slot.block.text) ?? "") === "") continue;
    kept.push(slot.block as JsonObject);
  }
  const usage: Usage = anthropicUsage(usageRaw);
  return {
    text,
    toolCalls,
    assistantMessage: anthropicAssistantMessage(kept),
    usage,
    finishReason: mapFinishReason(rawFinishReason, toolCalls.length > 0),
    rawFinishReason,
    model,
  };
}
