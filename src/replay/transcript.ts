import { isJsonObject, type Json, type JsonObject } from "../events/json.js";
import type { WireCodec, WireMessage } from "../wire/types.js";
import { canonicalJson } from "../events/canonical-json.js";

/** One transcript entry as strict replay compares it: what the model reads, not how the JSON spells it. */
export interface TranscriptEntry {
  role: string;
  text: string;
  toolCalls: { id: string; name: string; input: Json }[];
  toolResults: { id: string; text: string }[];
}

/**
 * A request's transcript: the system prompt and the messages, as the dialect's codec decodes
 * them, each message as the canonical JSON text of its `TranscriptEntry`. Text compares in one
 * step, and a recording's transcripts share their texts (see `TextInterner`): call n repeats the
 * n-1 messages before it, so a long run's transcripts take memory for each message once.
 */
export interface Transcript {
  system: string;
  messages: string[];
}

/** Hands out one string object per distinct text, so repeated texts share their memory. */
export class TextInterner {
  private readonly texts = new Map<string, string>();

  intern(text: string): string {
    const known = this.texts.get(text);
    if (known !== undefined) return known;
    this.texts.set(text, text);
    return text;
  }
}

/** The first place two transcripts differ: a JSON pointer into the received body, and both values there. */
export interface TranscriptDifference {
  path: string;
  expected: Json;
  actual: Json;
}

function entryOf(message: WireMessage): TranscriptEntry {
  const entry: TranscriptEntry = { role: message.role, text: "", toolCalls: [], toolResults: [] };
  for (const part of message.parts) {
    if (part.type === "text") entry.text += part.text;
    else if (part.type === "tool_call") entry.toolCalls.push({ id: part.call.id, name: part.call.name, input: part.call.input });
    else if (part.type === "tool_result") entry.toolResults.push({ id: part.toolCallId, text: part.text });
  }
  return entry;
}

/** The transcript of a request body in `codec`'s dialect; a body the codec cannot read is an empty transcript. */
export function transcriptOf(codec: WireCodec, body: Json, interner?: TextInterner): Transcript {
  try {
    const request = codec.decodeRequest(body);
    // Chat Completions keeps the system prompt as a transcript entry: compared there, not twice.
    const system = codec.systemInTranscript ? "" : (request.system ?? "");
    const text = (m: WireMessage) => canonicalJson(entryOf(m));
    return { system, messages: request.messages.map((m) => (interner ? interner.intern(text(m)) : text(m))) };
  } catch {
    return { system: "", messages: [] };
  }
}

/** Where each dialect keeps the transcript and the system prompt in a request body. */
function pointers(codec: WireCodec, body: Json): { messages: string; system: string } {
  const b: JsonObject = isJsonObject(body) ? body : {};
  switch (codec.dialect) {
    case "openai-responses":
      return { messages: "/input", system: "/instructions" };
    case "gemini":
      return { messages: "/contents", system: b["system_instruction"] !== undefined ? "/system_instruction" : "/systemInstruction" };
    case "anthropic":
      return { messages: "/messages", system: "/system" };
    default:
      return { messages: "/messages", system: "/messages" };
  }
}

function entryJson(text: string | undefined): Json {
  return text === undefined ? null : (JSON.parse(text) as Json);
}

type EntryField = "role" | "text" | "toolCalls" | "toolResults";

/** Where each field of an entry sits in a dialect's message (a Responses item holds one call or result). */
const FIELD_KEYS: Record<string, Record<EntryField, string>> = {
  openai: { role: "role", text: "content", toolCalls: "tool_calls", toolResults: "content" },
  anthropic: { role: "role", text: "content", toolCalls: "content", toolResults: "content" },
  gemini: { role: "role", text: "parts", toolCalls: "parts", toolResults: "parts" },
  "openai-responses": { role: "role", text: "content", toolCalls: "arguments", toolResults: "output" },
};

/**
 * The difference inside message `i`: the first field that differs, pointed at in the received
 * message when that message has the field's key; else the whole message.
 */
function messageDifference(codec: WireCodec, received: Json, list: string, i: number, e: string, a: string): TranscriptDifference {
  const expected = JSON.parse(e) as Record<EntryField, Json>;
  const actual = JSON.parse(a) as Record<EntryField, Json>;
  const field = (["role", "text", "toolCalls", "toolResults"] as const).find(
    (f) => canonicalJson(expected[f]) !== canonicalJson(actual[f]),
  );
  const items = isJsonObject(received) ? received[list.slice(1)] : undefined;
  const message = Array.isArray(items) ? items[i] : undefined;
  const key = field && FIELD_KEYS[codec.dialect]?.[field];
  if (field === undefined || key === undefined || !isJsonObject(message) || !(key in message))
    return { path: `${list}/${i}`, expected: expected as unknown as Json, actual: actual as unknown as Json };
  return { path: `${list}/${i}/${key}`, expected: expected[field], actual: actual[field] };
}

/**
 * The first difference between a recorded transcript and a received one, or undefined when they
 * match. `path` points into the received body: the system prompt, or the first message that
 * differs (the field that differs, where the message has it), or is missing or extra.
 */
export function firstDifference(
  codec: WireCodec,
  received: Json,
  expected: Transcript,
  actual: Transcript,
): TranscriptDifference | undefined {
  const at = pointers(codec, received);
  if (expected.system !== actual.system) return { path: at.system, expected: expected.system, actual: actual.system };
  const count = Math.max(expected.messages.length, actual.messages.length);
  for (let i = 0; i < count; i++) {
    const e = expected.messages[i];
    const a = actual.messages[i];
    if (e !== undefined && e === a) continue;
    if (at.messages === "/input" && isJsonObject(received) && typeof received["input"] === "string")
      return { path: "/input", expected: entryJson(e), actual: entryJson(a) };
    if (e === undefined || a === undefined) return { path: `${at.messages}/${i}`, expected: entryJson(e), actual: entryJson(a) };
    return messageDifference(codec, received, at.messages, i, e, a);
  }
  return undefined;
}
