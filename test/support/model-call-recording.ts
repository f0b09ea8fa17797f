import { createWriteStream } from "node:fs";
import { once } from "node:events";
import type { Json } from "../../src/events/json.js";

export interface ModelCallRecordingShape {
  /** how many OpenAI chat-completions calls, one after the other */
  calls: number;
  /** call i's request body (default: an empty conversation) */
  request?: (i: number) => Json;
  /** call i's reply text */
  answer: (i: number) => string;
  /** lines written before the first call: a scope that never ends, say */
  head?: readonly string[];
  /** lines written after the last call */
  tail?: readonly string[];
  /** the uuid of the scope the calls run in (default: none, each call a root) */
  parent?: string;
  /** before each call's uuid (`u-<i>`), so two recordings' calls are distinct spans */
  uuidPrefix?: string;
}

/** An ISO timestamp `us` microseconds into 2026. */
function at(us: number): string {
  return new Date(Date.UTC(2026, 0, 1) + us / 1000).toISOString().replace("Z", "000Z");
}

/**
 * Writes an ATOF recording of model calls quickly: each call an `llm` start with its request and
 * an end with a chat.completion reply, through a write stream with backpressure, so a recording
 * of hundreds of MB costs the test no memory.
 */
export async function writeModelCallRecording(path: string, shape: ModelCallRecordingShape): Promise<void> {
  const out = createWriteStream(path, { highWaterMark: 1024 * 1024 });
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, "drain");
  };
  for (const line of shape.head ?? []) await write(line + "\n");
  for (let i = 0; i < shape.calls; i++) {
    const base = {
      atof_version: "0.1",
      uuid: `${shape.uuidPrefix ?? ""}u-${i}`,
      parent_uuid: shape.parent ?? null,
      name: "openai.chat_completions",
      attributes: [],
      category: "llm",
    };
    const schema = { data_schema: { name: "openai/chat-completions", version: "1" }, category_profile: null, metadata: null };
    const request = shape.request?.(i) ?? { model: "m", messages: [] };
    const start = { kind: "scope", scope_category: "start", ...base, timestamp: at(i * 10), ...schema, data: { content: request } };
    const reply = {
      id: `r-${i}`,
      object: "chat.completion",
      model: "m",
      choices: [{ index: 0, message: { role: "assistant", content: shape.answer(i) }, finish_reason: "stop" }],
      usage: { prompt_tokens: 5, completion_tokens: 5, total_tokens: 10 },
    };
    const end = { kind: "scope", scope_category: "end", ...base, timestamp: at(i * 10 + 5), ...schema, data: reply };
    await write(JSON.stringify(start) + "\n" + JSON.stringify(end) + "\n");
  }
  for (const line of shape.tail ?? []) await write(line + "\n");
  out.end();
  await once(out, "finish");
}
