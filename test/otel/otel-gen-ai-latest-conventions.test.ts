// The gen_ai projection and the GenAI metrics under semantic-conventions-genai v0.1.0
// (OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental): the switch itself, workflows as
// internal agent spans, the trimmed invoke_agent span, cache_write, top_k as an int, the
// gen_ai.client.inference.exception log record, and the inference, agent and tool metrics.
// Spans go through the real OTel SDK (SpanCapture); logs and metrics through the real SDKs to a
// loopback OTLP receiver; model calls are real HTTP calls to a scripted provider.
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { afterEach, describe, expect, it, vi } from "vitest";
import { OtelExporter, type OtelExporterOptions } from "../../exporters/otel/index.js";
import { SpanCapture, startScriptedProvider, type ScriptedTurn } from "../../exporters/testing/index.js";
import { createClient, createToolkit, defineTool } from "../../src/index.js";
import type { JsonObject } from "../../src/events/json.js";
import { createRuntime, type Runtime } from "../../src/runtime/runtime.js";
import { attributesOf, logRecordsOf, metricsOf, spansOf, startOtlpReceiver, type OtlpReceiver } from "../support/otlp.js";

const OPT_IN = "OTEL_SEMCONV_STABILITY_OPT_IN";
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

function latestCapture(options: Partial<OtelExporterOptions> = {}): { rt: Runtime; capture: SpanCapture } {
  const rt = createRuntime();
  const capture = new SpanCapture({ projection: "gen_ai", genAiConventions: "0.1.0", ...options });
  capture.register(rt);
  return { rt, capture };
}

async function receiver(): Promise<OtlpReceiver> {
  const r = await startOtlpReceiver();
  cleanups.push(r.close);
  return r;
}

const byName = (spans: readonly ReadableSpan[], name: string) => spans.find((s) => s.name === name)!;

describe("the switch", () => {
  it.each([
    [undefined, "1.41"],
    ["http", "1.41"],
    ["gen_ai_latest_experimental", "0.1.0"],
    ["http, GEN_AI_LATEST_EXPERIMENTAL ,database", "0.1.0"],
  ])("OTEL_SEMCONV_STABILITY_OPT_IN=%s selects %s", (value, expected) => {
    if (value !== undefined) vi.stubEnv(OPT_IN, value);
    const capture = new SpanCapture({ projection: "gen_ai" });
    expect(capture.exporter.genAiConventions).toBe(expected);
  });

  it("is read when the exporter is built; the option wins over the variable", async () => {
    vi.stubEnv(OPT_IN, "gen_ai_latest_experimental");
    const fromEnv = new SpanCapture({ projection: "gen_ai" });
    const pinned = new SpanCapture({ projection: "gen_ai", genAiConventions: "1.41" });
    vi.stubEnv(OPT_IN, "");
    const rt = createRuntime();
    fromEnv.register(rt);
    pinned.register(rt);
    await rt.withScope("crew", () => undefined, { metadata: { "gen_ai.operation.name": "invoke_workflow", "gen_ai.workflow.name": "c" } });
    expect((await fromEnv.spans())[0]!.attributes).toEqual({ "gen_ai.operation.name": "invoke_workflow", "gen_ai.agent.name": "c" });
    expect((await pinned.spans())[0]!.attributes).toMatchObject({ "gen_ai.workflow.name": "c" });
  });

  it("refuses an unknown version with the option's name", () => {
    expect(() => new OtelExporter({ projection: "gen_ai", genAiConventions: "1.37" as never })).toThrow(/genAiConventions/);
  });
});

describe("spans", () => {
  it("a workflow is an internal agent span: invoke_workflow {gen_ai.agent.name}, no gen_ai.workflow.name", async () => {
    const { rt, capture } = latestCapture();
    await rt.withScope("crew", () => undefined, {
      metadata: { "gen_ai.operation.name": "invoke_workflow", "gen_ai.workflow.name": "research-crew", "gen_ai.provider.name": "openai" },
    });
    await rt.withScope("pipeline", () => undefined, {
      metadata: { "gen_ai.operation.name": "invoke_workflow", "gen_ai.agent.name": "triage" },
    });
    const [crew, pipeline] = await capture.spans();
    expect(crew!.name).toBe("invoke_workflow research-crew");
    expect(crew!.kind).toBe(0); // INTERNAL
    expect(crew!.attributes).toEqual({ "gen_ai.operation.name": "invoke_workflow", "gen_ai.agent.name": "research-crew" });
    expect(pipeline!.name).toBe("invoke_workflow triage");
  });

  it("the internal invoke_agent span has no agent id, version or provider, even when a model call knows the provider", async () => {
    const provider = await startScriptedProvider({ turns: [{ text: "hi", usage: { promptTokens: 3, completionTokens: 1 } }] });
    cleanups.push(provider.close);
    const { rt, capture } = latestCapture();
    const client = createClient({ baseUrl: provider.url, style: "openai", model: "m", apiKey: "k", agentName: "planner", runtime: rt });
    await rt.withScope("outer", () => client.run("hello"), {
      category: "agent",
      metadata: { "gen_ai.agent.id": "asst_42", "gen_ai.agent.version": "3.1", "gen_ai.agent.description": "plans" },
    });
    const spans = await capture.spans();
    const outer = byName(spans, "invoke_agent outer");
    expect(outer.attributes).toEqual({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "outer",
      "gen_ai.agent.description": "plans",
      // the usage of the model calls inside it, which v0.1.0 recommends on the internal agent span
      "gen_ai.usage.input_tokens": 3,
      "gen_ai.usage.output_tokens": 1,
    });
    expect(byName(spans, "invoke_agent planner").attributes["gen_ai.provider.name"]).toBeUndefined();
    expect(byName(spans, "chat m").attributes["gen_ai.provider.name"]).toBe("openai");
  });

  it("create_agent keeps its agent id and version", async () => {
    const { rt, capture } = latestCapture();
    await rt.withScope("setup", () => undefined, {
      metadata: { "gen_ai.operation.name": "create_agent", "gen_ai.agent.name": "r", "gen_ai.agent.id": "a1", "gen_ai.agent.version": "2" },
    });
    const [span] = await capture.spans();
    expect(span!.attributes).toMatchObject({ "gen_ai.agent.id": "a1", "gen_ai.agent.version": "2" });
  });

  it("cache writes are gen_ai.usage.cache_write.input_tokens; top_k is an int", async () => {
    const { rt, capture } = latestCapture();
    const reply = {
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5",
      content: [{ type: "text", text: "ok" }],
      stop_reason: "end_turn",
      usage: { input_tokens: 5, output_tokens: 7, cache_read_input_tokens: 100, cache_creation_input_tokens: 20 },
    };
    const request = (topK: number) => ({
      headers: {},
      content: { model: "claude-sonnet-4-5", max_tokens: 10, top_k: topK, messages: [{ role: "user", content: "x" }] },
    });
    await rt.executeLlm("anthropic.messages", request(40), () => reply);
    await rt.executeLlm("anthropic.messages", request(2.5), () => reply);
    const [whole, fractional] = await capture.spans();
    expect(whole!.attributes["gen_ai.usage.cache_write.input_tokens"]).toBe(20);
    expect(whole!.attributes["gen_ai.usage.cache_read.input_tokens"]).toBe(100);
    expect(whole!.attributes["gen_ai.usage.cache_creation.input_tokens"]).toBeUndefined();
    expect(whole!.attributes["gen_ai.request.top_k"]).toBe(40);
    expect(fractional!.attributes["gen_ai.request.top_k"]).toBeUndefined();
  });
});

describe("a failed model call", () => {
  class RateLimitError extends Error {
    override name = "RateLimitError";
  }
  const failing = (rt: Runtime) =>
    rt
      .executeLlm("openai.chat_completions", { headers: {}, content: { model: "gpt-4o", messages: [] } }, () => {
        throw new RateLimitError("429 too many requests");
      })
      .catch(() => undefined);

  it("sends gen_ai.client.inference.exception as a WARN log record in the span's context, not as a span event", async () => {
    const r = await receiver();
    const rt = createRuntime();
    new OtelExporter({ projection: "gen_ai", genAiConventions: "0.1.0", endpoint: `${r.url}/v1/traces`, logs: true }).register(rt);
    await failing(rt);
    await rt.shutdown();
    const [span] = r.received.filter((x) => x.signal === "traces").flatMap((x) => spansOf(x.body));
    const eventNames = ((span!["events"] ?? []) as JsonObject[]).map((e) => e["name"]);
    expect(eventNames.filter((n) => String(n).startsWith("gen_ai."))).toEqual([]);
    const records = logRecordsOf(r.received);
    expect(records).toHaveLength(1);
    const record = records[0]!;
    expect(record["eventName"]).toBe("gen_ai.client.inference.exception");
    expect(record["severityNumber"]).toBe(13);
    expect(record["severityText"]).toBe("WARN");
    expect(record["traceId"]).toBe(span!["traceId"]);
    expect(record["spanId"]).toBe(span!["spanId"]);
    expect(attributesOf(record["attributes"])).toEqual({
      "exception.type": "RateLimitError",
      "exception.message": expect.stringContaining("429 too many requests"),
    });
  });

  it("without the logs signal the event is counted in the diagnostics", async () => {
    const { rt, capture } = latestCapture();
    await failing(rt);
    const [span] = await capture.spans();
    expect(span!.events.filter((e) => e.name.startsWith("gen_ai."))).toEqual([]);
    expect(capture.diagnostics().find((d) => d.code === "otel.gen_ai_event_not_exported")?.count).toBe(1);
  });
});

/** A metric's data points by name, from every metrics export received. */
function pointsOf(r: OtlpReceiver, name: string): JsonObject[] {
  const metric = metricsOf(r.received).find((m) => m["name"] === name) as JsonObject | undefined;
  if (metric === undefined) return [];
  const data = (metric["histogram"] ?? metric["sum"]) as { dataPoints: JsonObject[] };
  return data.dataPoints;
}
const valueOf = (p: JsonObject) => Number(p["asInt"] ?? p["asDouble"] ?? p["sum"]);

/** One agent run inside a workflow: a tool round, then an answer; then a failed model call. */
async function meteredRun(turns: ScriptedTurn[]): Promise<OtlpReceiver> {
  const r = await receiver();
  const provider = await startScriptedProvider({ model: "m", turns });
  cleanups.push(provider.close);
  const rt = createRuntime();
  new OtelExporter({ projection: "gen_ai", genAiConventions: "0.1.0", endpoint: `${r.url}/v1/traces`, metrics: true }).register(rt);
  const client = createClient({ baseUrl: provider.url, style: "openai", model: "m", apiKey: "k", agentName: "billing", runtime: rt });
  const lookup = defineTool({
    name: "lookup",
    description: "Look an order up",
    inputSchema: { type: "object", properties: {} },
    execute: () => "found",
  });
  const toolkit = await createToolkit({ builtins: false, tools: [lookup] });
  await rt.withScope("crew", () => client.run("go", { toolkit }), {
    metadata: { "gen_ai.operation.name": "invoke_workflow", "gen_ai.agent.name": "crew" },
  });
  await rt
    .executeLlm("openai.chat_completions", { headers: {}, content: { model: "m", messages: [] } }, () => {
      throw new Error("boom");
    })
    .catch(() => undefined);
  await rt.shutdown();
  return r;
}

describe("metrics", () => {
  const turns: ScriptedTurn[] = [
    { toolCalls: [{ id: "c1", name: "lookup", arguments: {} }], usage: { promptTokens: 120, completionTokens: 30, cachedTokens: 100 } },
    { text: "done", usage: { promptTokens: 180, completionTokens: 20 } },
  ];

  it("inference: gen_ai.client.inference.duration and the usage counters by gen_ai.token.modality replace the v1.41 names", async () => {
    const r = await meteredRun(turns);
    const names = metricsOf(r.received).map((m) => m["name"]);
    expect(names).not.toContain("gen_ai.client.operation.duration");
    expect(names).not.toContain("gen_ai.client.token.usage");

    const duration = pointsOf(r, "gen_ai.client.inference.duration");
    expect(duration.reduce((n, p) => n + Number(p["count"]), 0)).toBe(3); // two turns and the failed call
    const failed = duration.find((p) => attributesOf(p["attributes"])["error.type"] !== undefined)!;
    expect(attributesOf(failed["attributes"])).toMatchObject({ "error.type": expect.any(String), "gen_ai.operation.name": "chat" });

    const sum = (name: string) => pointsOf(r, name).reduce((n, p) => n + valueOf(p), 0);
    expect(sum("gen_ai.client.inference.usage.input_tokens")).toBe(300);
    expect(sum("gen_ai.client.inference.usage.output_tokens")).toBe(50);
    expect(sum("gen_ai.client.inference.usage.cache_read.input_tokens")).toBe(100);
    expect(sum("gen_ai.client.inference.usage.cache_write.input_tokens")).toBe(0);
    expect(sum("gen_ai.client.inference.usage.reasoning.output_tokens")).toBe(0);
    for (const p of pointsOf(r, "gen_ai.client.inference.usage.input_tokens")) {
      const attrs = attributesOf(p["attributes"]);
      expect(attrs["gen_ai.token.modality"]).toBe("unknown");
      expect(attrs["error.type"]).toBeUndefined();
    }
    // The per-operation histograms count every call, the failed one with 0 tokens.
    const input = pointsOf(r, "gen_ai.client.inference.operation.input_tokens");
    expect(input.reduce((n, p) => n + Number(p["count"]), 0)).toBe(3);
    expect(input.reduce((n, p) => n + Number(p["sum"]), 0)).toBe(300);
  });

  it("agents and workflows: gen_ai.invoke_agent.duration and the calls each invocation made itself", async () => {
    const r = await meteredRun(turns);
    const byOperation = (name: string) =>
      Object.fromEntries(
        pointsOf(r, name).map((p) => {
          const attrs = attributesOf(p["attributes"]);
          return [`${String(attrs["gen_ai.operation.name"])} ${String(attrs["gen_ai.agent.name"])}`, p];
        }),
      );
    const duration = byOperation("gen_ai.invoke_agent.duration");
    expect(Object.keys(duration).sort()).toEqual(["invoke_agent billing", "invoke_workflow crew"]);
    for (const p of Object.values(duration)) expect(Number(p["count"])).toBe(1);

    const inference = byOperation("gen_ai.invoke_agent.inference_calls");
    const tools = byOperation("gen_ai.invoke_agent.tool_calls");
    expect(Number(inference["invoke_agent billing"]!["sum"])).toBe(2);
    expect(Number(tools["invoke_agent billing"]!["sum"])).toBe(1);
    // The workflow's own calls only: the agent's are counted once, for the agent.
    expect(Number(inference["invoke_workflow crew"]!["sum"])).toBe(0);
    expect(Number(tools["invoke_workflow crew"]!["sum"])).toBe(0);

    const tool = pointsOf(r, "gen_ai.execute_tool.duration");
    expect(tool).toHaveLength(1);
    expect(attributesOf(tool[0]!["attributes"])).toMatchObject({ "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "lookup" });
  });
});
