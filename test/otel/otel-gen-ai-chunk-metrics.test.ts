// gen_ai.client.operation.time_per_output_chunk: the managed stream records when each chunk
// arrived, the `llm` end carries the time from each chunk to the next, and the real OTel SDK
// metric reader exports one measurement per chunk after the first (the conventions' buckets) to
// a loopback OTLP receiver. Streamed calls are real: the loop client against an SSE server.
import { afterEach, describe, expect, it } from "vitest";
import { OtelExporter } from "../../exporters/otel/index.js";
import { createClient } from "../../src/agent/index.js";
import type { JsonObject } from "../../src/events/json.js";
import type { AtofEvent } from "../../src/events/types.js";
import { createRuntime, type Runtime } from "../../src/runtime/runtime.js";
import { startProvider } from "../support/agent-provider-server.js";
import { attributesOf, startOtlpReceiver, type OtlpReceiver } from "../support/otlp.js";

const CONVENTION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

const frame = (data: unknown) => `data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;
const textTurn = [
  frame({ model: "stub", choices: [{ index: 0, delta: { role: "assistant", content: "it " } }] }),
  frame({ model: "stub", choices: [{ index: 0, delta: { content: "is " } }] }),
  frame({ model: "stub", choices: [{ index: 0, delta: { content: "five" } }] }),
  frame({ model: "stub", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }),
  frame({ model: "stub", choices: [], usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 } }),
  frame("[DONE]"),
].join("");

async function traced(): Promise<{ rt: Runtime; events: AtofEvent[]; receiver: OtlpReceiver }> {
  const receiver = await startOtlpReceiver();
  closers.push(receiver.close);
  const rt = createRuntime();
  const events: AtofEvent[] = [];
  rt.subscribe("capture", (e) => void events.push(e));
  new OtelExporter({ projection: "gen_ai", endpoint: `${receiver.url}/v1/traces`, metrics: true }).register(rt);
  return { rt, events, receiver };
}

function metric(receiver: OtlpReceiver, name: string): JsonObject | undefined {
  return receiver.received
    .filter((r) => r.signal === "metrics")
    .flatMap((r) =>
      (r.body["resourceMetrics"] as JsonObject[]).flatMap((rm) =>
        (rm["scopeMetrics"] as JsonObject[]).flatMap((sm) => sm["metrics"] as JsonObject[]),
      ),
    )
    .find((m) => m["name"] === name);
}

function points(m: JsonObject | undefined): JsonObject[] {
  return m === undefined ? [] : (m["histogram"] as { dataPoints: JsonObject[] }).dataPoints;
}

const countOf = (m: JsonObject | undefined) => points(m).reduce((n, p) => n + Number(p["count"]), 0);

function llmEnds(events: AtofEvent[]): AtofEvent[] {
  return events.filter((e) => e.kind === "scope" && e.category === "llm" && e.scope_category === "end");
}

describe("gen_ai.client.operation.time_per_output_chunk", () => {
  it("a streamed loop run: one measurement per chunk after the first, in seconds, with the conventions' buckets", async () => {
    const srv = await startProvider([{ sse: textTurn }]);
    closers.push(srv.close);
    const { rt, events, receiver } = await traced();
    const client = createClient({ baseUrl: srv.url, style: "openai", model: "stub", apiKey: "k", runtime: rt, retryBaseMs: 1 });
    let text = "";
    for await (const ev of client.stream("2+3?")) if (ev.type === "text") text += ev.delta;
    await rt.shutdown();
    expect(text).toBe("it is five");

    const [end] = llmEnds(events);
    const gaps = (end!.metadata as JsonObject)["time_per_output_chunk_ms"] as number[];
    // The text deltas and the usage arrive as separate chunks: at least the three deltas.
    expect(gaps.length).toBeGreaterThanOrEqual(2);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(0);

    const perChunk = metric(receiver, "gen_ai.client.operation.time_per_output_chunk");
    expect(perChunk?.["unit"]).toBe("s");
    expect(countOf(perChunk)).toBe(gaps.length);
    const sum = points(perChunk).reduce((n, p) => n + Number(p["sum"]), 0);
    expect(sum).toBeCloseTo(gaps.reduce((n, g) => n + g, 0) / 1000, 9);
    const [point] = points(perChunk);
    expect(point!["explicitBounds"]).toEqual(CONVENTION_BUCKETS);
    expect(attributesOf(point!["attributes"])).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.request.model": "stub",
      "server.address": "127.0.0.1",
    });
    expect(countOf(metric(receiver, "gen_ai.client.operation.time_to_first_chunk"))).toBe(1);
  });

  it("counts exactly the chunks after the first; a one-chunk stream and an unstreamed call record none", async () => {
    const { rt, events, receiver } = await traced();
    const request = { headers: {}, content: { model: "gpt-4o", stream: true, messages: [{ role: "user", content: "hi" }] } };
    const reply = { choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: "hello" } }] };
    const stream = (n: number) =>
      rt.executeLlmStream(
        "openai.chat_completions",
        request,
        async function* () {
          for (let i = 0; i < n; i++) yield { choices: [{ index: 0, delta: { content: String(i) } }] };
        },
        { assemble: () => reply },
      );
    for await (const chunk of stream(4)) void chunk;
    for await (const chunk of stream(1)) void chunk;
    await rt.executeLlm("openai.chat_completions", { headers: {}, content: { model: "gpt-4o", messages: [] } }, () => reply);
    await rt.shutdown();

    const metadata = llmEnds(events).map((e) => e.metadata as JsonObject);
    expect((metadata[0]!["time_per_output_chunk_ms"] as number[]).length).toBe(3);
    expect(metadata[1]!["time_per_output_chunk_ms"]).toBeUndefined();
    expect(metadata[2]!["time_per_output_chunk_ms"]).toBeUndefined();
    expect(countOf(metric(receiver, "gen_ai.client.operation.time_per_output_chunk"))).toBe(3);
    expect(countOf(metric(receiver, "gen_ai.client.operation.time_to_first_chunk"))).toBe(2);
  });
});
