import { ProviderConnectionError, ProviderResponseError, preview } from "./errors.js";
import { mapFinishReason } from "./finish-reason.js";
import { openAiAssistantMessage, openAiUsage } from "./openai-shared.js";
import { errorEnvelopeMessage, isDict, parseArgs, str } from "./shape.js";
import type { ParsedToolCall, ParsedTurn, SseEvent, StreamDelta, Usage } from "./types.js";

interface CallSlot {
  id: string;
  name: string;
  args: string;
}

function parseChunk(data: string): Record<string, unknown> {
  let chunk: unknown;
  try {
    chunk = JSON.parse(data);
  } catch (cause) {
    throw new ProviderResponseError(`OpenAI stream chunk is not JSON: ${preview(data)}`, { cause });
  }
  if (!isDict(chunk)) throw new ProviderResponseError(`OpenAI stream chunk is not a JSON object: ${preview(data)}`);
  const err = errorEnvelopeMessage(chunk);
  if (err !== undefined) throw new ProviderResponseError(`OpenAI stream reported an error: ${err}`);
  return chunk;
}

/**
 * Assembles an OpenAI `chat.completion.chunk` stream: text deltas are yielded as they come,
 * tool calls are assembled by `index`, usage comes from the final (choice-less) chunk.
 */
export async function* parseOpenAiStream(events: AsyncIterable<SseEvent>): AsyncGenerator<StreamDelta, ParsedTurn> {
  let text = "";
  const slots = new Map<number, CallSlot>();
  let usage: Usage | undefined;
  let model: string | undefined;
  let rawFinishReason: string | undefined;
  let done = false;
  let first = true;

  for await (const ev of events) {
    if (ev.data.trim() === "[DONE]") {
      done = true;
      break;
    }
    if (ev.data.trim() === "") continue;
    const chunk = parseChunk(ev.data);
    if (first) {
      first = false;
      yield { type: "first_chunk" };
    }
    model = str(chunk.model) ?? model;
    if (isDict(chunk.usage)) usage = openAiUsage(chunk.usage);
    const choice: unknown = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
    if (!isDict(choice)) continue;
    rawFinishReason = str(choice.finish_reason) ?? rawFinishReason;
    const delta = choice.delta;
    if (!isDict(delta)) continue;
    if (typeof delta.content === "string" && delta.content !== "") {
      text += delta.content;
      yield { type: "text", delta: delta.content };
    }
    if (Array.isArray(delta.tool_calls)) {
      delta.tool_calls.forEach((raw: unknown, pos: number) => {
        if (!isDict(raw)) return;
        // Some compatible servers omit `index`; fall back to the position in this chunk.
        const index = typeof raw.index === "number" ? raw.index : pos;
        const slot = slots.get(index) ?? { id: "", name: "", args: "" };
        slots.set(index, slot);
        if (typeof raw.id === "string" && raw.id !== "") slot.id = raw.id;
        const fn = raw.function;
        if (isDict(fn)) {
          if (typeof fn.name === "string") slot.name += fn.name;
          if (typeof fn.arguments === "string") slot.args += fn.arguments;
        }
      });
    }
  }

  // Servers that omit [DONE] still end cleanly after a finish_reason; anything else was cut off.
  if (!done && rawFinishReason === undefined) {
    throw new ProviderConnectionError("OpenAI stream ended before [DONE] (connection closed mid-reply)");
  }

  const toolCalls: ParsedToolCall[] = [...slots.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([index, s]) => {
      if (s.id === "") throw new ProviderResponseError(`OpenAI stream: tool call at index ${index} has no id`);
      if (s.name === "") throw new ProviderResponseError(`OpenAI stream: tool call at index ${index} has no function name`);
      return { id: s.id, name: s.name, args: parseArgs(s.args), arguments: s.args };
    });

  return {
    text,
    toolCalls,
    assistantMessage: openAiAssistantMessage(text, toolCalls),
    usage: usage ?? { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
    finishReason: mapFinishReason(rawFinishReason, toolCalls.length > 0),
    rawFinishReason,
    model,
  };
}
