import { isJsonObject, type Json, type JsonObject } from "../events/json.js";
import type { WireCodec, WireMessage } from "../wire/types.js";
import { canonicalJson } from "../events/canonical-json.js";
import { firstDifferentChar, layoutOf, systemLayout, textPointer, type MessageLayout } from "./pointer.js";

/** One transcript entry as strict replay compares it: what the model reads, not how the JSON spells it. */
export interface TranscriptEntry {
  role: string;
  text: string;
  toolCalls: { id: string; name: string; input: Json }[];
  toolResults: { id: string; text: string }[];
}

/**
 * A request's transcript: the system prompt and the messages, as the dialect's codec decodes
 * them. A recording held in memory shares its entries (see `EntryInterner`): call n repeats the
 * n-1 messages before it, so a long run's transcripts take memory for each message once.
 */
export interface Transcript {
  system: string;
  messages: TranscriptEntry[];
}

/** Hands out one entry object per distinct entry, so repeated messages share their memory. */
export class EntryInterner {
  private readonly entries = new Map<string, TranscriptEntry>();

  intern(entry: TranscriptEntry): TranscriptEntry {
    const key = canonicalJson(entry as unknown as Json);
    const known = this.entries.get(key);
    if (known !== undefined) return known;
    this.entries.set(key, entry);
    return entry;
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

/**
 * Whether two entries say the same: compared field by field (a tool call's arguments as
 * canonical JSON), which costs far less than writing whole entries out on every request.
 */
export function sameEntry(a: TranscriptEntry, b: TranscriptEntry): boolean {
  if (a === b) return true;
  if (a.role !== b.role || a.text !== b.text) return false;
  if (a.toolCalls.length !== b.toolCalls.length || a.toolResults.length !== b.toolResults.length) return false;
  for (let k = 0; k < a.toolCalls.length; k++) {
    const x = a.toolCalls[k]!;
    const y = b.toolCalls[k]!;
    if (x.id !== y.id || x.name !== y.name || canonicalJson(x.input) !== canonicalJson(y.input)) return false;
  }
  return a.toolResults.every((r, k) => r.id === b.toolResults[k]!.id && r.text === b.toolResults[k]!.text);
}

/** The transcript of a request body in `codec`'s dialect; a body the codec cannot read is an empty transcript. */
export function transcriptOf(codec: WireCodec, body: Json, interner?: EntryInterner): Transcript {
  try {
    const request = codec.decodeRequest(body);
    // Chat Completions keeps the system prompt as a transcript entry: compared there, not twice.
    const system = codec.systemInTranscript ? "" : (request.system ?? "");
    return { system, messages: request.messages.map((m) => (interner ? interner.intern(entryOf(m)) : entryOf(m))) };
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

/** The value a JSON pointer (relative to `root`, with plain keys and indexes) names; undefined when absent. */
function valueAt(root: Json | undefined, pointer: string): Json | undefined {
  let value = root;
  for (const key of pointer.split("/").slice(1)) {
    if (Array.isArray(value)) value = value[Number(key)];
    else if (isJsonObject(value)) value = value[key];
    else return undefined;
  }
  return value;
}

function entryJson(entry: TranscriptEntry | undefined): Json {
  return entry === undefined ? null : (entry as unknown as Json);
}

/** The part of `layout` where texts `e` and `a` first differ, the text's parts joined by `separator`. */
function textDifference(layout: MessageLayout, root: Json | undefined, e: string, a: string, separator: string): string | undefined {
  const texts = layout.texts.map((p) => valueAt(root, p)).map((v) => (typeof v === "string" ? v : ""));
  return textPointer(layout, texts, firstDifferentChar(e, a), separator);
}

/** The parent of a pointer into a list (`/tool_calls/0` → `/tool_calls`); undefined for the message itself. */
function listOf(pointer: string | undefined): string | undefined {
  if (pointer === undefined || pointer === "") return undefined;
  return pointer.slice(0, pointer.lastIndexOf("/")) || undefined;
}

type Here = (pointer: string | undefined, expected: Json, actual: Json) => TranscriptDifference;

/**
 * The first difference of two lists of tool calls (or results) lined up by position: a field of
 * a call both have, a call the received message lacks (pointed at its list), or an extra one.
 */
function listDifference<T extends Record<string, Json>>(
  expected: readonly T[],
  actual: readonly T[],
  located: readonly Partial<Record<keyof T | "at", string>>[],
  fields: readonly (keyof T & string)[],
  here: Here,
): TranscriptDifference | undefined {
  const count = Math.max(expected.length, actual.length);
  for (let k = 0; k < count; k++) {
    const e = expected[k];
    const a = actual[k];
    if (e !== undefined && a !== undefined) {
      const field = fields.find((f) => canonicalJson(e[f]!) !== canonicalJson(a[f]!));
      if (field === undefined) continue;
      return here(located[k]?.[field], e[field]!, a[field]!);
    }
    if (a === undefined) return here(listOf(located[0]?.at), e as unknown as Json, null);
    return here(located[k]?.at, null, a as unknown as Json);
  }
  return undefined;
}

/** The first difference inside message `i`, down to the field of the received message that holds it. */
function messageDifference(
  codec: WireCodec,
  received: Json,
  list: string,
  i: number,
  expected: TranscriptEntry,
  actual: TranscriptEntry,
): TranscriptDifference {
  const items = valueAt(received, list);
  const message = Array.isArray(items) ? items[i] : undefined;
  const layout = layoutOf(codec.dialect, message);
  const here: Here = (pointer, exp, act) => ({ path: `${list}/${i}${pointer ?? ""}`, expected: exp, actual: act });
  if (expected.role !== actual.role) return here(layout.role, expected.role, actual.role);
  if (expected.text !== actual.text)
    return here(textDifference(layout, message, expected.text, actual.text, ""), expected.text, actual.text);
  const calls = layout.calls.map((c) => ({ at: c.at, id: c.id, name: c.name, input: c.input }));
  return (
    listDifference(expected.toolCalls, actual.toolCalls, calls, ["id", "name", "input"], here) ??
    listDifference(expected.toolResults, actual.toolResults, layout.results, ["id", "text"], here) ??
    here(undefined, expected as unknown as Json, actual as unknown as Json)
  );
}

/** Where two system prompts first differ: the text part of the received one that holds the difference. */
function systemDifference(codec: WireCodec, received: Json, key: string, e: string, a: string): TranscriptDifference {
  const body = isJsonObject(received) ? received : {};
  const layout = systemLayout(codec.dialect, body, key.slice(1));
  const pointer = body[key.slice(1)] === undefined ? undefined : textDifference(layout, body, e, a, "\n");
  return { path: pointer ?? key, expected: e, actual: a };
}

/**
 * The first difference between a recorded transcript and a received one, or undefined when they
 * match. `path` points into the received body: the text part of the system prompt that differs,
 * or, in the first message that differs, the role, the text part, the tool call's id, name or
 * arguments, or the tool result's id or text; a message missing or extra is pointed at whole.
 */
export function firstDifference(
  codec: WireCodec,
  received: Json,
  expected: Transcript,
  actual: Transcript,
): TranscriptDifference | undefined {
  const at = pointers(codec, received);
  if (expected.system !== actual.system) return systemDifference(codec, received, at.system, expected.system, actual.system);
  const count = Math.max(expected.messages.length, actual.messages.length);
  for (let i = 0; i < count; i++) {
    const e = expected.messages[i];
    const a = actual.messages[i];
    if (e !== undefined && a !== undefined && sameEntry(e, a)) continue;
    if (at.messages === "/input" && isJsonObject(received) && typeof received["input"] === "string")
      return { path: "/input", expected: entryJson(e), actual: entryJson(a) };
    if (e === undefined || a === undefined) return { path: `${at.messages}/${i}`, expected: entryJson(e), actual: entryJson(a) };
    return messageDifference(codec, received, at.messages, i, e, a);
  }
  return undefined;
}
