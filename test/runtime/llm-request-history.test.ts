import { describe, expect, it } from "vitest";
import { serializeEvent } from "../../src/events/atof-serialize.js";
import type { Json, JsonObject } from "../../src/events/json.js";
import type { ScopeEvent } from "../../src/events/types.js";
import { createRuntime } from "../../src/runtime/runtime.js";
import { toJsonSafe } from "../../src/runtime/json-safe.js";
import { openaiChatCodec } from "../../src/wire/index.js";
import { capturingRuntime } from "../support/capture.js";

// A conversation's request repeats its whole history every turn. What a user relies on: each
// recorded request is exactly the body the app passed at that moment (frozen, immune to later
// changes of the app's objects, non-JSON values reported), however the runtime shares the
// messages that repeat from one request to the next.

const reply = { choices: [{ message: { role: "assistant", content: "ok" }, finish_reason: "stop" }] };

async function callWith(rt: ReturnType<typeof createRuntime>, body: JsonObject | Record<string, unknown>): Promise<void> {
  await rt.executeLlm("openai.chat_completions", { content: body as JsonObject }, async () => reply);
}

const starts = (events: readonly unknown[]) =>
  (events as ScopeEvent[])
    .filter((e) => e.category === "llm" && e.scope_category === "start")
    .map((e) => (e.data as { content: JsonObject }).content);

describe("recorded LLM requests over a growing conversation", () => {
  it("records each turn's body as sent, with a message edited in place between turns recorded as edited", async () => {
    const { rt, settle } = capturingRuntime();
    const messages: Record<string, unknown>[] = [{ role: "user", content: "first" }];
    const tools = [{ type: "function", function: { name: "weather", parameters: { type: "object" } } }];
    await callWith(rt, { model: "m", messages: [...messages], tools });
    messages.push({ role: "assistant", content: "answer" }, { role: "user", content: "second" });
    await callWith(rt, { model: "m", messages: [...messages], tools: tools.map((t) => ({ ...t })) });
    messages[0]!.content = "first, edited";
    (messages[1] as { extra?: unknown }).extra = { note: "added" };
    await callWith(rt, { model: "m", messages: [...messages], tools });
    const [one, two, three] = starts(await settle());
    expect(one).toEqual({ model: "m", messages: [{ role: "user", content: "first" }], tools });
    expect(two!.messages).toEqual([
      { role: "user", content: "first" },
      { role: "assistant", content: "answer" },
      { role: "user", content: "second" },
    ]);
    expect(three!.messages).toEqual([
      { role: "user", content: "first, edited" },
      { role: "assistant", content: "answer", extra: { note: "added" } },
      { role: "user", content: "second" },
    ]);
    // The ATOF line of every turn is its body's own JSON, key order included.
    expect(JSON.stringify(three)).toBe(JSON.stringify({ model: "m", messages, tools }));
    for (const body of [one, two, three]) expect(Object.isFrozen((body!.messages as Json[])[0])).toBe(true);
    expect(Object.isFrozen(messages[0])).toBe(false);
  });

  it("keeps a recorded request unchanged when the app later mutates the messages it sent", async () => {
    const { rt, settle } = capturingRuntime();
    const message = { role: "user", content: "hello", parts: [1, 2] };
    await callWith(rt, { model: "m", messages: [message] });
    await callWith(rt, { model: "m", messages: [message] });
    message.content = "changed";
    message.parts.push(3);
    const bodies = starts(await settle());
    expect(bodies.map((b) => b.messages)).toEqual([
      [{ role: "user", content: "hello", parts: [1, 2] }],
      [{ role: "user", content: "hello", parts: [1, 2] }],
    ]);
  });

  it("reports non-JSON values in a later turn's messages as payload_not_json and records what the copy makes of them", async () => {
    const { rt, settle } = capturingRuntime();
    const messages: Record<string, unknown>[] = [{ role: "user", content: "hi" }];
    await callWith(rt, { model: "m", messages: [...messages] });
    messages.push({ role: "user", content: "when?", at: new Date(0), big: 10n, skipped: undefined });
    await callWith(rt, { model: "m", messages: [...messages] });
    const [, second] = starts(await settle());
    expect(second).toEqual(toJsonSafe({ model: "m", messages }));
    expect((second!.messages as JsonObject[])[1]).toEqual({ role: "user", content: "when?", at: "1970-01-01T00:00:00.000Z", big: "10" });
    expect(rt.diagnostics().find((d) => d.code === "payload_not_json")?.count).toBe(1);
  });

  it("decodes and serializes every turn as its own body: exporters see each turn's messages, not an earlier turn's", async () => {
    const { rt, settle } = capturingRuntime();
    const messages: JsonObject[] = [{ role: "user", content: "q1" }];
    for (let turn = 0; turn < 4; turn++) {
      await callWith(rt, { model: "m", messages: [...messages] });
      messages.push({ role: "assistant", content: `a${turn}` }, { role: "user", content: `q${turn + 2}` });
      if (turn === 2) messages[1] = { role: "assistant", content: "a0, rewritten" };
    }
    const events = (await settle()) as ScopeEvent[];
    const recorded = events.filter((e) => e.category === "llm" && e.scope_category === "start");
    recorded.forEach((event, turn) => {
      const body = (event.data as { content: JsonObject }).content;
      const texts = openaiChatCodec.decodeRequest(body).messages.map((m) => m.text);
      expect(texts).toEqual((body.messages as JsonObject[]).map((m) => m.content));
      expect(texts.length).toBe(1 + 2 * turn);
      const line = JSON.parse(serializeEvent(event)) as { data: { content: Json } };
      expect(line.data.content).toEqual(body);
    });
    const last = (recorded[3]!.data as { content: JsonObject }).content;
    expect(openaiChatCodec.decodeRequest(last).messages[1]!.text).toBe("a0, rewritten");
  });
});
