import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createRuntime } from "../../src/runtime/runtime.js";
import type { JsonObject } from "../../src/events/json.js";
import type { AtofEvent, ScopeEvent } from "../../src/events/types.js";
import { createClient, createToolkit, defineTool, type Hooks } from "../../src/agent/index.js";
import { SpanCapture } from "../../exporters/testing/index.js";
import { AtofExporter } from "../../exporters/atof/index.js";
import { useScratchTmpdir } from "../support/scratch-tmpdir.js";
import { openaiReply, startProvider } from "../support/agent-provider-server.js";

// A traced run records the whole transcript on every provider call. What a user relies on,
// however the loop shares the messages that repeat from call to call: each recorded request is
// exactly the body sent, deep-frozen; the run hands back plain messages the app may edit; a
// later edit never reaches a recorded event; a beforeLLM hook may still edit the transcript.

const tmp = useScratchTmpdir("relaytrace-transcript-");
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

const weather = defineTool({
  name: "weather",
  description: "weather lookup",
  inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  execute: (args: { city: string }) => ({ result: { city: args.city, sky: 'clear "and" dry' } }),
});

async function tracedRun(options: { hooks?: Hooks; history?: unknown[] } = {}) {
  const srv = await startProvider([
    openaiReply(null, [{ id: "c1", name: "weather", arguments: '{"city":"Oslo"}' }]),
    openaiReply(null, [{ id: "c2", name: "weather", arguments: '{"city":"Rome"}' }]),
    openaiReply("done"),
  ]);
  closers.push(srv.close);
  const runtime = createRuntime();
  const events: AtofEvent[] = [];
  runtime.subscribe("capture", (e) => void events.push(e));
  const spans = new SpanCapture({ projection: "openinference" });
  spans.register(runtime);
  const client = createClient({
    baseUrl: srv.url,
    style: "openai",
    model: "stub",
    apiKey: "sk-test",
    runtime,
    ...(options.hooks ? { hooks: options.hooks } : {}),
  });
  const toolkit = await createToolkit({ tools: [weather] });
  const result = await client.run("weather?", { toolkit, ...(options.history ? { history: options.history } : {}) });
  await runtime.flush();
  const recorded = (events as ScopeEvent[])
    .filter((e) => e.category === "llm" && e.scope_category === "start")
    .map((e) => (e.data as { content: JsonObject }).content);
  const llmSpans = (await spans.spans()).filter((s) => s.attributes["openinference.span.kind"] === "LLM");
  return { srv, result, recorded, llmSpans };
}

function deeplyFrozen(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return true;
  return Object.isFrozen(value) && Object.values(value).every(deeplyFrozen);
}

describe("the transcript a traced run records", () => {
  it("records every call's body exactly as sent, deep-frozen", async () => {
    const { srv, result, recorded } = await tracedRun();
    expect(result.status).toBe("done");
    expect(recorded).toHaveLength(3);
    recorded.forEach((body, i) => {
      expect(JSON.stringify(body)).toBe(JSON.stringify(srv.requests[i]!.body));
      expect(deeplyFrozen(body)).toBe(true);
    });
    expect((recorded[2]!.messages as unknown[]).length).toBe(5); // the user turn, then an assistant turn and its tool result twice
  });

  it("gives each call's LLM span exactly the messages that call sent, earlier turns included", async () => {
    const { srv, llmSpans } = await tracedRun();
    expect(llmSpans).toHaveLength(3);
    llmSpans.forEach((span, i) => {
      const sent = srv.requests[i]!.body.messages as {
        role: string;
        content: string | null;
        tool_call_id?: string;
        tool_calls?: { id: string }[];
      }[];
      const a = span.attributes;
      expect(Object.keys(a).filter((k) => /^llm\.input_messages\.\d+\.message\.role$/.test(k))).toHaveLength(sent.length);
      sent.forEach((m, j) => {
        expect(a[`llm.input_messages.${j}.message.role`]).toBe(m.role);
        if (m.tool_call_id !== undefined) expect(a[`llm.input_messages.${j}.message.tool_call_id`]).toBe(m.tool_call_id);
        if (m.tool_calls) expect(a[`llm.input_messages.${j}.message.tool_calls.0.tool_call.id`]).toBe(m.tool_calls[0]!.id);
      });
      expect(a["llm.tools.0.tool.json_schema"]).toBe(JSON.stringify((srv.requests[i]!.body.tools as unknown[])[0]));
    });
  });

  it("hands back messages the app may edit, and an edit never reaches a recorded event", async () => {
    const { result, recorded } = await tracedRun();
    const before = JSON.stringify(recorded);
    for (const message of result.messages as Record<string, unknown>[]) {
      expect(Object.isFrozen(message)).toBe(false);
      message.content = "edited by the app";
    }
    (result.messages as unknown[]).push({ role: "user", content: "next" });
    expect(JSON.stringify(recorded)).toBe(before);
  });

  it("hands back history that was passed in as it was, and records it as sent", async () => {
    const history = [
      { role: "system", content: "be brief" },
      { role: "user", content: "earlier" },
      { role: "assistant", content: "noted", at: new Date(0) },
    ];
    const { srv, result, recorded } = await tracedRun({ history });
    expect(result.messages.slice(0, 3)).toEqual(history);
    expect((result.messages[2] as { at: unknown }).at).toBeInstanceOf(Date); // not made JSON for the run's own use
    for (const message of result.messages) expect(Object.isFrozen(message)).toBe(false);
    expect(JSON.stringify(recorded[0])).toBe(JSON.stringify(srv.requests[0]!.body));
    expect((recorded[0]!.messages as unknown[]).slice(0, 3)).toEqual(JSON.parse(JSON.stringify(history)));
  });

  it("lets a beforeLLM hook edit a message in place, and records the edited transcript", async () => {
    const hooks: Hooks = {
      beforeLLM: ({ messages, turn }) => {
        (messages[0] as { content: string }).content = `weather? (turn ${turn})`;
      },
    };
    const { srv, result, recorded } = await tracedRun({ hooks });
    expect(result.status).toBe("done");
    recorded.forEach((body, i) => {
      expect((body.messages as { content: string }[])[0]!.content).toBe(`weather? (turn ${i})`);
      expect(JSON.stringify(body)).toBe(JSON.stringify(srv.requests[i]!.body));
    });
  });

  it("sends and writes a long conversation's calls byte for byte: the body to the provider, each event to the ATOF file", async () => {
    const turns = 12;
    const { srv, result, events, path } = await longConversation(turns, true);
    expect(result.status).toBe("done");
    const recorded = (events as ScopeEvent[]).filter((e) => e.category === "llm" && e.scope_category === "start");
    expect(recorded).toHaveLength(turns + 1);
    recorded.forEach((event, i) => {
      const sent = JSON.stringify((event.data as { content: JsonObject }).content);
      expect(srv.requests[i]!.text).toBe(sent);
      expect(Number(srv.requests[i]!.headers["content-length"])).toBe(Buffer.byteLength(sent));
    });
    expect(srv.requests[turns]!.text.length).toBeGreaterThan(turns * 20_000);
    const lines = (await readFile(path!, "utf8")).split("\n");
    expect(lines.pop()).toBe("");
    expect(lines).toEqual(events.map((e) => JSON.stringify(e)));
  });

  it("sends an untraced run's calls exactly as a traced run's, and hands back the same editable messages", async () => {
    const traced = await longConversation(6, true);
    const untraced = await longConversation(6, false);
    expect(untraced.result.status).toBe("done");
    expect(untraced.srv.requests.map((r) => r.text)).toEqual(traced.srv.requests.map((r) => r.text));
    expect(untraced.result.messages).toEqual(traced.result.messages);
    for (const message of untraced.result.messages) expect(Object.isFrozen(message)).toBe(false);
  });
});

/**
 * A `turns`-turn run with a ~25 KB tool result a turn (multi-byte text included): late bodies are
 * hundreds of KB, which the loop sends, and the file sink writes, from the messages' own texts.
 * Traced: an ATOF file and a capturing subscriber; untraced: no subscriber at all.
 */
async function longConversation(turns: number, traced: boolean) {
  const notes = defineTool({
    name: "notes",
    description: "trip notes",
    inputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
    execute: (args: { n: number }) => ({ result: { n: args.n, text: `❄ notes ${args.n} `.repeat(2_500) } }),
  });
  const srv = await startProvider((_, i) =>
    i < turns ? openaiReply(`turn ${i} é`, [{ id: `c${i}`, name: "notes", arguments: JSON.stringify({ n: i }) }]) : openaiReply("done"),
  );
  closers.push(srv.close);
  const runtime = createRuntime();
  const events: AtofEvent[] = [];
  let path: string | undefined;
  if (traced) {
    runtime.subscribe("capture", (e) => void events.push(e));
    path = join(tmp.dir, `long-conversation-${turns}.atof.jsonl`);
    new AtofExporter({ type: "file", path }).register(runtime);
  }
  const client = createClient({ baseUrl: srv.url, style: "openai", model: "stub", apiKey: "sk-test", runtime, maxTurns: turns + 2 });
  const result = await client.run("plan the trip", { toolkit: await createToolkit({ tools: [notes] }) });
  await runtime.shutdown();
  return { srv, result, events, path };
}
