import { isJsonObject } from "../../src/events/json.js";
import type { AtofEvent } from "../../src/events/types.js";
import { codecForEvent, sharedDecodeRequest } from "../../src/wire/index.js";
import type { WireRequest } from "../../src/wire/index.js";
import { toAtifMessage, unwrapBody } from "./content.js";
import type { AtifMessage } from "./types.js";

export interface UserTurn {
  fresh: boolean;
  message?: AtifMessage;
  /** No codec read the request: nothing is known of its turns. */
  unread?: true;
}

/** The decoded request of an LLM start, through the codec its schema, name or shape selects. */
function decodedRequest(event: AtofEvent): WireRequest | undefined {
  const body = unwrapBody(event.data);
  if (!isJsonObject(body)) return undefined;
  const codec = codecForEvent({ dataSchema: event.data_schema, name: event.name, body, which: "request" });
  return codec === undefined ? undefined : sharedDecodeRequest(codec, body);
}

/**
 * Decides whether an LLM request starts a fresh user turn (its last non-system message is the
 * user's own, not tool results), and extracts the user message when it does.
 */
export function detectUserTurn(event: AtofEvent): UserTurn {
  const body = unwrapBody(event.data);
  if (!isJsonObject(body)) {
    return typeof body === "string" ? { fresh: true, message: body } : { fresh: false };
  }
  const request = decodedRequest(event);
  if (request !== undefined && request.messages.length > 0) {
    for (let i = request.messages.length - 1; i >= 0; i--) {
      const m = request.messages[i]!;
      if (m.role === "system") continue;
      if (m.role !== "user") return { fresh: false };
      return { fresh: true, message: toAtifMessage(m.content) };
    }
    return { fresh: false };
  }
  if ("prompt" in body) return { fresh: true, message: toAtifMessage(body["prompt"]) };
  return request === undefined ? { fresh: false, unread: true } : { fresh: false };
}

/** The request's reasoning effort, when it sets one. */
export function reasoningEffortOf(event: AtofEvent): string | number | undefined {
  return decodedRequest(event)?.settings.reasoningEffort;
}
