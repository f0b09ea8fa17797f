// The gen_ai projection against the GenAI semantic conventions v1.41: reasoning and media parts,
// reasoning and cache token counts, the requested output type, time to first chunk (span attribute
// and client metric), agent identity, create_agent / invoke_workflow spans and the client
// operation exception event. Spans go through the real OTel SDK (SpanCapture); metrics and log
// records to a loopback OTLP receiver.
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { afterEach, describe, expect, it } from "vitest";
import { OtelExporter } from "../../exporters/otel/index.js";
import { SpanCapture } from "../../exporters/testing/index.js";
import type { Json, JsonObject } from "../../src/events/json.js";
import { createRuntime, type Runtime } from "../../src/runtime/runtime.js";
import { attributesOf, logRecordsOf, spansOf, startOtlpReceiver, type OtlpReceiver } from "../support/otlp.js";

const receivers: OtlpReceiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

function captured(): { rt: Runtime; capture: SpanCapture } {
  const rt = createRuntime();
  const capture = new SpanCapture({ projection: "gen_ai" });
  capture.register(rt);
  return { rt, capture };
}

async function llmSpan(name: string, request: JsonObject, response: Json): Promise<ReadableSpan> {
  const { rt, capture } = captured();
  await rt.executeLlm(name, { headers: {}, content: request }, () => response);
  const spans = await capture.spans();
  await rt.shutdown();
  expect(spans).toHaveLength(1);
  return spans[0]!;
}

function json(span: ReadableSpan, key: string): unknown {
  const value = span.attributes[key];
  expect(typeof value, `${key} is a JSON string`).toBe("string");
  return JSON.parse(value as string);
}

describe("reasoning in every dialect", () => {
  it("OpenAI reasoning_content becomes a reasoning part before the text, with the reasoning token count", async () => {
    const span = await llmSpan(
      "openai.chat_completions",
      { model: "deepseek-reasoner", messages: [{ role: "user", content: "2+2?" }] },
      {
        id: "r1",
        model: "deepseek-reasoner",
        choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", reasoning_content: "Add them.", content: "4" } }],
        usage: { prompt_tokens: 10, completion_tokens: 30, total_tokens: 40, completion_tokens_details: { reasoning_tokens: 25 } },
      },
    );
    expect(json(span, "gen_ai.output.messages")).toEqual([
      {
        role: "assistant",
        parts: [
          { type: "reasoning", content: "Add them." },
          { type: "text", content: "4" },
        ],
        finish_reason: "stop",
      },
    ]);
    expect(span.attributes["gen_ai.usage.reasoning.output_tokens"]).toBe(25);
    expect(span.attributes["gen_ai.usage.output_tokens"]).toBe(30);
  });

  it("Anthropic thinking blocks are kept as reasoning parts, with cache read and creation tokens", async () => {
    const span = await llmSpan(
      "anthropic.messages",
      { model: "claude-sonnet-4-5", max_tokens: 1024, messages: [{ role: "user", content: "Why?" }] },
      {
        id: "msg_1",
        type: "message",
        role: "assistant",
        model: "claude-sonnet-4-5",
        content: [
          { type: "thinking", thinking: "Consider the cause.", signature: "sig" },
          { type: "text", text: "Because." },
        ],
        stop_reason: "end_turn",
        usage: { input_tokens: 5, output_tokens: 7, cache_read_input_tokens: 100, cache_creation_input_tokens: 20 },
      },
    );
    const [message] = json(span, "gen_ai.output.messages") as [{ parts: unknown[] }];
    expect(message.parts).toEqual([
      { type: "reasoning", content: "Consider the cause." },
      { type: "text", content: "Because." },
    ]);
    expect(span.attributes["gen_ai.usage.cache_read.input_tokens"]).toBe(100);
    expect(span.attributes["gen_ai.usage.cache_creation.input_tokens"]).toBe(20);
  });

  it("Gemini thought parts are reasoning parts; thoughtsTokenCount is the reasoning token count", async () => {
    const span = await llmSpan(
      "gemini.generate_content",
      { contents: [{ role: "user", parts: [{ text: "Hi" }] }] },
      {
        modelVersion: "gemini-2.5-pro",
        candidates: [
          {
            content: {
              role: "model",
              parts: [{ text: "Greet back.", thought: true }, { text: "Hello!" }],
            },
            finishReason: "STOP",
          },
        ],
        usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 2, thoughtsTokenCount: 9, totalTokenCount: 14 },
      },
    );
    const [message] = json(span, "gen_ai.output.messages") as [{ parts: unknown[] }];
    expect(message.parts).toEqual([
      { type: "reasoning", content: "Greet back." },
      { type: "text", content: "Hello!" },
    ]);
    expect(span.attributes["gen_ai.usage.reasoning.output_tokens"]).toBe(9);
  });
});

describe("media parts follow the message schemas (blob, uri, file)", () => {
  it("inline data, a URL and a file id in one user message become blob, uri and file parts", async () => {
    const span = await llmSpan(
      "openai.chat_completions",
      {
        model: "gpt-4o",
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "What is in these?" },
              { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
              { type: "image_url", image_url: { url: "https://example.com/cat.jpg" } },
              { type: "file", file: { file_id: "file-abc" } },
              { type: "input_audio", input_audio: { data: "UklGRg==", format: "wav" } },
            ],
          },
        ],
      },
      { choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: "A cat." } }] },
    );
    const [message] = json(span, "gen_ai.input.messages") as [{ parts: unknown[] }];
    expect(message.parts).toEqual([
      { type: "text", content: "What is in these?" },
      { type: "blob", modality: "image", mime_type: "image/png", content: "iVBORw0KGgo=" },
      { type: "uri", modality: "image", uri: "https://example.com/cat.jpg" },
      { type: "file", file_id: "file-abc" },
      { type: "blob", modality: "audio", mime_type: "audio/wav", content: "UklGRg==" },
    ]);
  });

  it("Anthropic base64 sources and Gemini inline and file data", async () => {
    const anthropic = await llmSpan(
      "anthropic.messages",
      {
        model: "claude-sonnet-4-5",
        max_tokens: 10,
        messages: [
          {
            role: "user",
            content: [
              { type: "image", source: { type: "base64", media_type: "image/jpeg", data: "/9j/4AAQ" } },
              { type: "text", text: "Describe." },
            ],
          },
        ],
      },
      { id: "m", type: "message", role: "assistant", content: [{ type: "text", text: "ok" }], stop_reason: "end_turn" },
    );
    const [a] = json(anthropic, "gen_ai.input.messages") as [{ parts: unknown[] }];
    expect(a.parts).toContainEqual({ type: "blob", modality: "image", mime_type: "image/jpeg", content: "/9j/4AAQ" });

    const gemini = await llmSpan(
      "gemini.generate_content",
      {
        contents: [
          {
            role: "user",
            parts: [
              { text: "Listen." },
              { inlineData: { mimeType: "audio/mp3", data: "SUQz" } },
              { fileData: { mimeType: "video/mp4", fileUri: "gs://bucket/clip.mp4" } },
            ],
          },
        ],
      },
      { candidates: [{ content: { role: "model", parts: [{ text: "ok" }] }, finishReason: "STOP" }] },
    );
    const [g] = json(gemini, "gen_ai.input.messages") as [{ parts: unknown[] }];
    expect(g.parts).toEqual([
      { type: "text", content: "Listen." },
      { type: "blob", modality: "audio", mime_type: "audio/mp3", content: "SUQz" },
      { type: "uri", modality: "video", mime_type: "video/mp4", uri: "gs://bucket/clip.mp4" },
    ]);
  });
});

describe("gen_ai.output.type", () => {
  const reply = { choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: "{}" } }] };
  it.each([
    ["a JSON schema response format (Chat)", { response_format: { type: "json_schema", json_schema: { name: "x", schema: {} } } }, "json"],
    ["JSON mode (Chat)", { response_format: { type: "json_object" } }, "json"],
    ["plain text (Chat)", { response_format: { type: "text" } }, "text"],
    ["no format", {}, undefined],
  ])("%s", async (_what, parameters, expected) => {
    const span = await llmSpan(
      "openai.chat_completions",
      { model: "gpt-4o", messages: [{ role: "user", content: "x" }], ...parameters },
      reply,
    );
    expect(span.attributes["gen_ai.output.type"]).toBe(expected);
  });

  it("Gemini's responseMimeType and the Responses API's text.format", async () => {
    const gemini = await llmSpan(
      "gemini.generate_content",
      { contents: [{ role: "user", parts: [{ text: "x" }] }], generationConfig: { responseMimeType: "application/json" } },
      { candidates: [{ content: { role: "model", parts: [{ text: "{}" }] }, finishReason: "STOP" }] },
    );
    expect(gemini.attributes["gen_ai.output.type"]).toBe("json");
    const responses = await llmSpan(
      "openai.responses",
      { model: "gpt-4.1", input: "x", text: { format: { type: "json_schema", name: "x", schema: {} } } },
      { id: "resp_1", object: "response", model: "gpt-4.1", status: "completed", output: [] },
    );
    expect(responses.attributes["gen_ai.output.type"]).toBe("json");
  });
});

describe("agents and workflows", () => {
  it("an agent scope carries gen_ai.agent.id and gen_ai.agent.version from its metadata", async () => {
    const { rt, capture } = captured();
    await rt.withScope("planner", () => undefined, {
      category: "agent",
      metadata: { "gen_ai.agent.id": "asst_42", "gen_ai.agent.version": "3.1", "gen_ai.agent.description": "plans" },
    });
    const [span] = await capture.spans();
    expect(span!.name).toBe("invoke_agent planner");
    expect(span!.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "planner",
      "gen_ai.agent.id": "asst_42",
      "gen_ai.agent.version": "3.1",
      "gen_ai.agent.description": "plans",
    });
  });

  it("a scope that declares create_agent or invoke_workflow gets that operation, its span name and kind", async () => {
    const { rt, capture } = captured();
    await rt.withScope("setup", () => undefined, {
      category: "function",
      metadata: { "gen_ai.operation.name": "create_agent", "gen_ai.agent.name": "researcher", "gen_ai.agent.id": "a1" },
    });
    await rt.withScope("crew", () => undefined, {
      category: "function",
      metadata: { "gen_ai.operation.name": "invoke_workflow", "gen_ai.workflow.name": "research-crew" },
    });
    const spans = await capture.spans();
    const create = spans.find((s) => s.name === "create_agent researcher")!;
    expect(create.kind).toBe(2); // CLIENT
    expect(create.attributes).toMatchObject({
      "gen_ai.operation.name": "create_agent",
      "gen_ai.agent.name": "researcher",
      "gen_ai.agent.id": "a1",
    });
    const workflow = spans.find((s) => s.name === "invoke_workflow research-crew")!;
    expect(workflow.kind).toBe(0); // INTERNAL
    expect(workflow.attributes).toMatchObject({ "gen_ai.operation.name": "invoke_workflow", "gen_ai.workflow.name": "research-crew" });
  });
});

describe("a failed model call", () => {
  it("emits the gen_ai.client.operation.exception event as a WARN log record on the failed call's span, not as a span event", async () => {
    const r = await startOtlpReceiver();
    receivers.push(r);
    const rt = createRuntime();
    const exporter = new OtelExporter({ projection: "gen_ai", endpoint: `${r.url}/v1/traces`, protocol: "http/json", logs: true });
    exporter.register(rt);
    class RateLimitError extends Error {
      override name = "RateLimitError";
    }
    await expect(
      rt.executeLlm("openai.chat_completions", { headers: {}, content: { model: "gpt-4o", messages: [] } }, () => {
        throw new RateLimitError("429 too many requests");
      }),
    ).rejects.toThrow("429");
    await rt.shutdown();
    expect(exporter.diagnostics()).toEqual([]);
    const [span] = r.received.filter((x) => x.signal === "traces").flatMap((x) => spansOf(x.body));
    expect(span!["name"]).toBe("chat gpt-4o");
    const spanEvents = (span!["events"] ?? []) as Record<string, unknown>[];
    expect(spanEvents.map((e) => e["name"])).not.toContain("gen_ai.client.operation.exception");
    const records = logRecordsOf(r.received);
    expect(records.map((l) => l["eventName"])).toEqual(["gen_ai.client.operation.exception"]);
    const [record] = records as [Record<string, unknown>];
    expect(record["severityNumber"]).toBe(13);
    expect(record["severityText"]).toBe("WARN");
    const attributes = attributesOf(record["attributes"]);
    expect(attributes["exception.type"]).toBe("RateLimitError");
    expect(attributes["exception.message"]).toContain("429 too many requests");
    expect([record["traceId"], record["spanId"]]).toEqual([span!["traceId"], span!["spanId"]]);
  });

  it("with the logs signal off the span still says what failed: status ERROR, error.type and the message", async () => {
    const { rt, capture } = captured();
    await expect(
      rt.executeLlm("openai.chat_completions", { headers: {}, content: { model: "gpt-4o", messages: [] } }, () => {
        throw new TypeError("bad body");
      }),
    ).rejects.toThrow("bad body");
    const [span] = await capture.spans();
    expect(span!.status).toEqual({ code: 2, message: expect.stringContaining("bad body") });
    expect(span!.attributes["error.type"]).toBe("internal_error");
    expect(span!.events.filter((e) => e.name === "gen_ai.client.operation.exception")).toEqual([]);
  });
});

describe("streamed calls", () => {
  async function streamOnce(rt: Runtime): Promise<void> {
    const chunks = rt.executeLlmStream(
      "openai.chat_completions",
      { headers: {}, content: { model: "gpt-4o", stream: true, messages: [{ role: "user", content: "hi" }] } },
      async function* () {
        yield { choices: [{ index: 0, delta: { role: "assistant", content: "he" } }] };
        yield { choices: [{ index: 0, delta: { content: "llo" }, finish_reason: "stop" }] };
      },
      { assemble: () => ({ choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: "hello" } }] }) },
    );
    for await (const _chunk of chunks) void _chunk;
  }

  it("carry gen_ai.response.time_to_first_chunk in seconds; unstreamed calls do not", async () => {
    const { rt, capture } = captured();
    await streamOnce(rt);
    await rt.executeLlm("openai.chat_completions", { headers: {}, content: { model: "gpt-4o", messages: [] } }, () => ({ choices: [] }));
    const [streamed, plain] = await capture.spans();
    const ttfc = streamed!.attributes["gen_ai.response.time_to_first_chunk"];
    expect(typeof ttfc).toBe("number");
    expect(ttfc as number).toBeGreaterThanOrEqual(0);
    expect(plain!.attributes["gen_ai.response.time_to_first_chunk"]).toBeUndefined();
  });

  it("record the gen_ai.client.operation.time_to_first_chunk histogram with the conventions' buckets", async () => {
    const receiver = await startOtlpReceiver();
    receivers.push(receiver);
    const rt = createRuntime();
    new OtelExporter({ projection: "gen_ai", endpoint: `${receiver.url}/v1/traces`, metrics: true }).register(rt);
    await streamOnce(rt);
    await rt.executeLlm("openai.chat_completions", { headers: {}, content: { model: "gpt-4o", messages: [] } }, () => ({ choices: [] }));
    await rt.shutdown();
    const metrics = receiver.received
      .filter((r) => r.signal === "metrics")
      .flatMap((r) =>
        (r.body["resourceMetrics"] as JsonObject[]).flatMap((rm) =>
          (rm["scopeMetrics"] as JsonObject[]).flatMap((sm) => sm["metrics"] as JsonObject[]),
        ),
      );
    const ttfc = metrics.find((m) => m["name"] === "gen_ai.client.operation.time_to_first_chunk");
    expect(ttfc?.["unit"]).toBe("s");
    const points = (ttfc!["histogram"] as { dataPoints: JsonObject[] }).dataPoints;
    expect(points.reduce((n, p) => n + Number(p["count"]), 0)).toBe(1); // the streamed call only
    expect(points[0]!["explicitBounds"]).toEqual([0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92]);
    expect(attributesOf(points[0]!["attributes"])).toMatchObject({ "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o" });
  });
});
