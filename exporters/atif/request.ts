import { isJsonObject, type Json } from "../../src/events/json.js";
import { toAtifMessage, unwrapBody } from "./content.js";
import type { AtifMessage } from "./types.js";

export interface UserTurn {
  fresh: boolean;
  message?: AtifMessage;
}

const SKIPPED_ROLES = new Set(["system", "developer"]);

/** A user message made only of tool_result blocks continues the previous turn (Anthropic). */
function isToolResultsOnly(content: Json | undefined): boolean {
  return Array.isArray(content) && content.length > 0 && content.every((b) => isJsonObject(b) && b["type"] === "tool_result");
}

/**
 * Decides whether an LLM request starts a fresh user turn, for OpenAI and
 * Anthropic bodies (and NAT's bare `{messages}`), and extracts the user message when it does.
 */
export function detectUserTurn(startData: Json | undefined): UserTurn {
  const body = unwrapBody(startData);
  if (!isJsonObject(body)) {
    return typeof body === "string" ? { fresh: true, message: body } : { fresh: false };
  }
  const messages = body["messages"];
  if (Array.isArray(messages)) {
    for (let i = messages.length - 1; i >= 0; i--) {
      const m = messages[i];
      if (!isJsonObject(m)) continue;
      const role = m["role"];
      if (typeof role === "string" && SKIPPED_ROLES.has(role)) continue;
      if (role !== "user") return { fresh: false };
      const content = m["content"];
      if (isToolResultsOnly(content)) return { fresh: false };
      return { fresh: true, message: toAtifMessage(content) };
    }
    return { fresh: false };
  }
  if ("prompt" in body) return { fresh: true, message: toAtifMessage(body["prompt"]) };
  return { fresh: false };
}

/** `reasoning_effort` or `reasoning.effort` of the request body, when present. */
export function reasoningEffortOf(startData: Json | undefined): string | number | undefined {
  const body = unwrapBody(startData);
  if (!isJsonObject(body)) return undefined;
  const direct = body["reasoning_effort"];
  if (typeof direct === "string" || typeof direct === "number") return direct;
  const reasoning = body["reasoning"];
  if (isJsonObject(reasoning)) {
    const effort = reasoning["effort"];
    if (typeof effort === "string" || typeof effort === "number") return effort;
  }
  return undefined;
}
