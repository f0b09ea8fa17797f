import type { Json } from "../events/json.js";
import { WireShapeError } from "./errors.js";
import { errorEnvelopeMessage, kindOf } from "./read.js";
import type { WireMessage, WirePart, WireResponse, WireRole, WireToolCall } from "./types.js";

/** Helpers every dialect uses to build its decoded shapes. */

export function message(role: WireRole, parts: WirePart[], content: Json): WireMessage {
  return { role, parts, text: textOfParts(parts, "\n"), content };
}

export function textOfParts(parts: readonly WirePart[], joiner: string): string {
  // Most messages hold one text part or none: no array to build and join.
  if (parts.length === 0) return "";
  if (parts.length === 1) return parts[0]!.type === "text" ? parts[0]!.text : "";
  const out: string[] = [];
  for (const p of parts) if (p.type === "text") out.push(p.text);
  return out.join(joiner);
}

export function toolCallsOf(parts: readonly WirePart[]): WireToolCall[] {
  const out: WireToolCall[] = [];
  for (const p of parts) if (p.type === "tool_call") out.push(p.call);
  return out;
}

/** The fields of a reply a decoder reads directly; the rest are derived from its parts. */
export type ReplyFields = Omit<WireResponse, "parts" | "text" | "toolCalls" | "reasoning">;

/** A reply's id (when a string) and model (when a non-empty string), as every dialect reads them. */
export function replyIds(id: unknown, model: unknown): ReplyFields {
  const rest: ReplyFields = {};
  if (typeof id === "string") rest.id = id;
  if (typeof model === "string" && model !== "") rest.model = model;
  return rest;
}

/** The strict decode's error for a `dialect` reply that is not a JSON object. */
export function notAnObjectReply(dialect: string, body: unknown): WireShapeError {
  return new WireShapeError(`${dialect} reply is ${kindOf(body)}, expected a JSON object`);
}

/** The strict decode's error for a `dialect` reply without its `list` array, naming the provider's error when the body is one. */
export function missingListReply(dialect: string, list: string, body: unknown): WireShapeError {
  const err = errorEnvelopeMessage(body);
  return new WireShapeError(`${dialect} reply has no ${list} array${err !== undefined ? `; provider error: ${err}` : ""}`);
}

/** A reply from its parts: text joined with "", reasoning with "\n", calls in order. */
export function responseFromParts(parts: WirePart[], rest: ReplyFields): WireResponse {
  const reasoning = parts.filter((p): p is Extract<WirePart, { type: "reasoning" }> => p.type === "reasoning").map((p) => p.text);
  const response: WireResponse = { ...rest, parts, text: textOfParts(parts, ""), toolCalls: toolCallsOf(parts) };
  if (reasoning.length > 0) response.reasoning = reasoning.join("\n");
  return response;
}

/** A tool result's output as text (strings as they are, anything else as JSON). */
export function resultText(output: Json | undefined): string {
  if (typeof output === "string") return output;
  if (output === undefined || output === null) return "";
  return JSON.stringify(output);
}

/** `data: <json>` events joined as the wire carries them. */
export function sseText(events: readonly { event?: string; data: string }[]): string {
  return events.map((e) => `${e.event ? `event: ${e.event}\n` : ""}data: ${e.data}\n\n`).join("");
}
