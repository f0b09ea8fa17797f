// Attribute value length limits cut JSON-valued attributes inside their values, so a truncated
// message, argument or result attribute still parses. The truncator is property-tested (any
// JSON, any limit: the text parses and fits), then run end to end: a real agent loop exports
// through OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT to a real OTLP receiver on 127.0.0.1.
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { OtelExporter } from "../../exporters/otel/index.js";
import { truncateJson, truncateJsonText } from "../../exporters/otel/json-truncate.js";
import { startScriptedProvider, type ScriptedProvider } from "../../exporters/testing/index.js";
import type { Json } from "../../src/events/json.js";
import { createClient, createToolkit, defineTool } from "../../src/index.js";
import { createRuntime } from "../../src/runtime/runtime.js";
import { attributesOf, startOtlpReceiver } from "../support/otlp.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const anyJson = fc.jsonValue({ maxDepth: 6, stringUnit: "binary" }) as fc.Arbitrary<Json>;

describe("truncateJson", () => {
  it("always returns text that parses and fits the limit; a value that fits comes back unchanged", () => {
    fc.assert(
      fc.property(anyJson, fc.integer({ min: 2, max: 600 }), (value, limit) => {
        const whole = JSON.stringify(value);
        const text = truncateJson(value, limit);
        if (text === undefined) {
          // only a scalar longer than the limit has no shorter JSON form
          expect(value === null || typeof value !== "object").toBe(true);
          expect(typeof value === "string").toBe(false);
          return;
        }
        expect(text.length).toBeLessThanOrEqual(limit);
        expect(() => JSON.parse(text)).not.toThrow();
        if (whole.length <= limit) expect(text).toBe(whole);
        // what was cut says so, whenever the limit leaves room for a marker
        else if (limit >= 64) expect(text).toMatch(/…(\[\+\d+ (chars|items)\]|":"\+\d+ keys")/);
      }),
      { numRuns: 2000 },
    );
  });

  it("keeps the structure and cuts the long strings, each with a marker saying how much went", () => {
    const messages = [
      { role: "system", parts: [{ type: "text", content: "Be brief. ".repeat(100) }] },
      { role: "user", parts: [{ type: "text", content: "Weather in Oslo? ".repeat(100) }] },
    ];
    const text = truncateJson(messages, 400)!;
    expect(text.length).toBeLessThanOrEqual(400);
    const parsed = JSON.parse(text) as { role: string; parts: { type: string; content: string }[] }[];
    expect(parsed.map((m) => m.role)).toEqual(["system", "user"]);
    for (const [i, message] of parsed.entries()) {
      const content = message.parts[0]!.content;
      const original = messages[i]!.parts[0]!.content;
      const [kept, marker] = content.split("…");
      expect(original.startsWith(kept!)).toBe(true);
      expect(marker).toBe(`[+${original.length - kept!.length} chars]`);
    }
  });

  it("drops the tail of a list too long for the limit and counts it", () => {
    const text = truncateJson(
      Array.from({ length: 1000 }, (_, i) => i),
      60,
    )!;
    const parsed = JSON.parse(text) as (number | string)[];
    const marker = parsed[parsed.length - 1] as string;
    expect(marker).toBe(`…[+${1000 - (parsed.length - 1)} items]`);
    expect(parsed.slice(0, -1)).toEqual(Array.from({ length: parsed.length - 1 }, (_, i) => i));
  });

  it("never splits a surrogate pair or an escape", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", minLength: 50, maxLength: 200 }), fc.integer({ min: 20, max: 120 }), (s, limit) => {
        const text = truncateJson({ s }, limit);
        if (text === undefined) return;
        const out = (JSON.parse(text) as { s?: string }).s;
        if (out === undefined) return; // the limit held only the dropped-key marker
        const marker = /…\[\+(\d+) chars\]$/.exec(out);
        const kept = out === s || marker === null ? out : out.slice(0, marker.index);
        expect(s.startsWith(kept)).toBe(true);
        if (marker !== null && out !== s) expect(Number(marker[1])).toBe(s.length - kept.length);
      }),
      { numRuns: 1000 },
    );
  });

  it("takes nesting far deeper than any stack: 100,000 levels", () => {
    let deep: Json = { leaf: "x".repeat(1000) };
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const text = truncateJson(deep, 2000)!;
    expect(text.length).toBeLessThanOrEqual(2000);
    expect(() => JSON.parse(text)).not.toThrow();
  });

  it("as text: not JSON is left to the caller (undefined), JSON within the limit comes back as it is", () => {
    expect(truncateJsonText("[INFO] not json".repeat(10), 20)).toBeUndefined();
    expect(truncateJsonText('{"a":1}', 20)).toBe('{"a":1}');
  });
});

describe("OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT on JSON-valued attributes", () => {
  it("messages, tool arguments, results and mark data stay parseable JSON within the limit; plain text is cut as the SDK cuts it", async () => {
    const LIMIT = 300;
    vi.stubEnv("OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT", String(LIMIT));
    const provider: ScriptedProvider = await startScriptedProvider({
      turns: [
        { toolCalls: [{ id: "call_1", name: "lookup", arguments: { query: "q".repeat(2000), page: 2 } }] },
        { text: "answer ".repeat(400) },
      ],
    });
    cleanups.push(() => provider.close());
    const receiver = await startOtlpReceiver();
    cleanups.push(() => receiver.close());
    const rt = createRuntime();
    for (const projection of ["gen_ai", "openinference", "full"] as const) {
      new OtelExporter({ projection, endpoint: `${receiver.url}/v1/traces`, scheduledDelayMillis: 60_000 }).register(rt);
    }
    const lookup = defineTool({
      name: "lookup",
      description: "Look something up",
      inputSchema: { type: "object", properties: { query: { type: "string" }, page: { type: "number" } } },
      execute: () => ({ rows: Array.from({ length: 200 }, (_, i) => ({ id: i, text: `row ${i}` })) }),
    });
    const client = createClient({ baseUrl: provider.url, style: "openai", model: "m", apiKey: "sk-test", runtime: rt });
    await rt.withScope(
      "session",
      async () => {
        rt.mark("note", { data: { items: Array.from({ length: 100 }, (_, i) => `item ${i}`) } });
        await client.run("Tell me everything. ".repeat(100), { toolkit: await createToolkit({ tools: [lookup] }) });
      },
      { category: "agent" },
    );
    rt.mark("orphan", { data: { items: Array.from({ length: 100 }, (_, i) => `orphan item ${i}`) } }); // a mark span of its own
    await rt.shutdown();

    type Obj = Record<string, unknown>;
    const spans = receiver.received
      .filter((r) => r.signal === "traces")
      .flatMap((r) =>
        (r.body["resourceSpans"] as Obj[]).flatMap((rs) => (rs["scopeSpans"] as Obj[]).flatMap((ss) => ss["spans"] as Obj[])),
      );
    const all: Record<string, unknown>[] = spans.flatMap((s) => [
      attributesOf(s["attributes"]),
      ...((s["events"] as Obj[] | undefined) ?? []).map((e) => attributesOf(e["attributes"])),
    ]);
    const jsonKeys = [
      "gen_ai.input.messages",
      "gen_ai.output.messages",
      "gen_ai.tool.call.arguments",
      "gen_ai.tool.call.result",
      "gen_ai.tool.definitions",
      "tool.parameters",
      "output.value",
      "nemo_relay.mark.data.items",
    ];
    let checked = 0;
    let cut = 0;
    for (const attrs of all) {
      for (const [key, value] of Object.entries(attrs)) {
        if (typeof value !== "string") continue;
        expect(value.length, key).toBeLessThanOrEqual(LIMIT);
        if (!jsonKeys.includes(key) || !/^[[{]/.test(value)) continue;
        expect(() => JSON.parse(value), `${key}: ${value}`).not.toThrow();
        checked++;
        if (value.includes("…[+")) cut++;
      }
    }
    expect(checked).toBeGreaterThan(8);
    const orphan = spans.filter((s) => s["name"] === "mark:orphan").map((s) => attributesOf(s["attributes"]));
    expect(orphan).toHaveLength(2); // full and openinference (gen_ai renders no marks)
    for (const attrs of orphan) {
      const items = attrs["nemo_relay.mark.data.items"];
      if (items === undefined) continue; // openinference writes output.value instead
      expect(JSON.parse(String(items)).at(-1)).toMatch(/^…\[\+\d+ items\]$|…\[\+\d+ chars\]$/);
    }
    const events = spans.flatMap((s) => ((s["events"] as Obj[] | undefined) ?? []).map((e) => attributesOf(e["attributes"])));
    const note = events.find((e) => typeof e["nemo_relay.mark.data.items"] === "string")!;
    expect(String(note["nemo_relay.mark.data.items"]).length).toBeLessThanOrEqual(LIMIT);
    expect(cut).toBeGreaterThan(5);
    const genAiChat = all.find((a) => a["gen_ai.operation.name"] === "chat" && String(a["gen_ai.output.messages"]).includes("answer"))!;
    const output = JSON.parse(String(genAiChat["gen_ai.output.messages"])) as { role: string; parts: { content: string }[] }[];
    expect(output[0]!.role).toBe("assistant");
    expect(output[0]!.parts[0]!.content).toMatch(/^answer answer .*…\[\+\d+ chars\]$/);
    // OpenInference's input.value of an LLM span is plain text: cut at the limit, as the SDK does
    const oiInput = all.map((a) => a["input.value"]).find((v) => typeof v === "string" && v.startsWith("user: "));
    expect(oiInput).toHaveLength(LIMIT);
  });
});
