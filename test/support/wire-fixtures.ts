// Recorded real-shaped provider bodies, one file per dialect, with one expectation per field.
// The codec tests, the loop tests and the projection tests all read these same files.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Json, JsonObject } from "../../src/events/json.js";
import type { DataSchema } from "../../src/events/types.js";
import type { Dialect, WireSettings, WireStreamEvent, WireUsage } from "../../src/wire/index.js";

export interface WireFixture {
  dialect: Dialect;
  schema: DataSchema;
  request: JsonObject;
  response: JsonObject;
  stream: WireStreamEvent[];
  toolResponse: JsonObject;
  error: Json;
  expected: {
    model: string | null;
    system: string | null;
    roles: string[];
    userText: string;
    requestToolCall: { id: string; name: string; arguments: string };
    toolResult: { toolCallId: string; text: string };
    tools: string[];
    toolChoice: string;
    settings: WireSettings;
    responseId: string;
    responseModel: string;
    text: string;
    reasoning?: string;
    finish: string;
    rawFinishReason: string;
    usage: WireUsage;
    toolCall: { id: string; name: string; arguments: string };
    errorMessage: string;
  };
}

const FILES: Record<Dialect, string> = {
  openai: "openai-chat-completions.json",
  "openai-responses": "openai-responses.json",
  anthropic: "anthropic-messages.json",
  gemini: "gemini-generate-content.json",
};

export const DIALECT_NAMES: readonly Dialect[] = ["openai", "openai-responses", "anthropic", "gemini"];

export function wireFixture(dialect: Dialect): WireFixture {
  const path = fileURLToPath(new URL(`../fixtures/wire/${FILES[dialect]}`, import.meta.url));
  return { dialect, ...(JSON.parse(readFileSync(path, "utf8")) as Omit<WireFixture, "dialect">) };
}

/** Every dialect's fixture, for `describe.each`. */
export function allWireFixtures(): WireFixture[] {
  return DIALECT_NAMES.map(wireFixture);
}

/** An async iterable over recorded stream events, as the SSE parser would yield them. */
export async function* replay(events: readonly WireStreamEvent[]): AsyncGenerator<WireStreamEvent> {
  for (const e of events) yield e;
}
