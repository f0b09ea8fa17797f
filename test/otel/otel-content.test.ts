// What users see in their backend: content capture on and off, gen_ai tool attributes, aliases,
// and the OpenInference conversation of a multi-turn agent run (a real loop against a scripted
// provider on 127.0.0.1).
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SpanCapture, startScriptedProvider, type ScriptedProvider } from "../../exporters/testing/index.js";
import { createClient, createToolkit, defineTool } from "../../src/index.js";
import { createRuntime } from "../../src/runtime/runtime.js";
import { OtelExporter, type OtelExporterOptions } from "../../exporters/otel/index.js";
import { attributesOf, startOtlpReceiver, type OtlpReceiver } from "../support/otlp.js";

const SECRET_PROMPT = "my locker code is 8841";
const SECRET_ARG = "Tromsø-harbour";
const SECRET_RESULT = "sleet-and-gales";
const SECRET_REPLY = "pack a raincoat";
const SECRET_SYSTEM = "You are the harbour master";

const providers: ScriptedProvider[] = [];
const receivers: OtlpReceiver[] = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  await Promise.all(providers.splice(0).map((p) => p.close()));
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

/** One real loop run: the model asks for a tool, then answers; every projection captured. */
async function agentRun(options: Omit<OtelExporterOptions, "projection" | "spanExporter" | "endpoint" | "headers"> = {}) {
  const provider = await startScriptedProvider({
    turns: [
      {
        toolCalls: [{ id: "call_1", name: "forecast", arguments: { place: SECRET_ARG } }],
        usage: { promptTokens: 20, completionTokens: 4 },
      },
      { text: SECRET_REPLY, usage: { promptTokens: 30, completionTokens: 6 } },
    ],
  });
  providers.push(provider);
  const rt = createRuntime();
  const captures = {
    full: new SpanCapture({ projection: "full", ...options }),
    openinference: new SpanCapture({ projection: "openinference", ...options }),
    gen_ai: new SpanCapture({ projection: "gen_ai", ...options }),
  };
  for (const c of Object.values(captures)) c.register(rt);
  const forecast = defineTool({
    name: "forecast",
    description: "Weather forecast for a place",
    inputSchema: { type: "object", properties: { place: { type: "string" } }, required: ["place"] },
    execute: () => ({ sky: SECRET_RESULT, temp_c: 3 }),
  });
  const client = createClient({
    baseUrl: provider.url,
    style: "openai",
    model: "scripted-model",
    apiKey: "sk-test",
    runtime: rt,
    systemPrompt: SECRET_SYSTEM,
  });
  await client.run(SECRET_PROMPT, { toolkit: await createToolkit({ tools: [forecast] }) });
  await rt.flush();
  return {
    full: await captures.full.spans(),
    openinference: await captures.openinference.spans(),
    gen_ai: await captures.gen_ai.spans(),
  };
}

function allText(spans: ReadableSpan[]): string {
  return JSON.stringify(spans.map((s) => ({ attributes: s.attributes, events: s.events.map((e) => e.attributes) })));
}

const llmSpans = (spans: ReadableSpan[]) => spans.filter((s) => s.kind === 2 && !/tool|forecast/.test(s.name));
const toolSpan = (spans: ReadableSpan[]) => spans.find((s) => s.name.includes("forecast"))!;

describe("captureContent", () => {
  it("is on by default: bodies, tool arguments, results and system instructions reach every projection", async () => {
    const spans = await agentRun();
    for (const projection of ["full", "openinference", "gen_ai"] as const) {
      const text = allText(spans[projection]);
      for (const secret of [SECRET_PROMPT, SECRET_ARG, SECRET_RESULT, SECRET_REPLY, SECRET_SYSTEM])
        expect(text, `${projection} ${secret}`).toContain(secret);
    }
  });

  it("off: no body, argument, result or instruction leaves; names, ids, roles, tokens and finish reasons stay", async () => {
    const spans = await agentRun({ captureContent: false });
    for (const projection of ["full", "openinference", "gen_ai"] as const) {
      const text = allText(spans[projection]);
      for (const secret of [SECRET_PROMPT, SECRET_ARG, SECRET_RESULT, SECRET_REPLY, SECRET_SYSTEM])
        expect(text, `${projection} ${secret}`).not.toContain(secret);
    }
    const oi = llmSpans(spans.openinference)[1]!.attributes;
    expect(oi["llm.token_count.prompt"]).toBe(30);
    expect(oi["llm.finish_reason"]).toBe("complete");
    expect(oi["llm.input_messages.2.message.role"]).toBe("assistant");
    expect(oi["llm.input_messages.2.message.tool_calls.0.tool_call.function.name"]).toBe("forecast");
    expect(toolSpan(spans.openinference).attributes["tool.name"]).toBe("forecast");
    const genAi = llmSpans(spans.gen_ai)[0]!.attributes;
    expect(genAi["gen_ai.usage.input_tokens"]).toBe(20);
    expect(genAi["gen_ai.response.finish_reasons"]).toEqual(["tool_call"]);
    expect(toolSpan(spans.gen_ai).attributes["gen_ai.tool.call.id"]).toBe("call_1");
  });

  it("off: a mark's log record carries no body (its data); name, severity and the enclosing span's ids stay", async () => {
    type Obj = Record<string, unknown>;
    const records = async (options: Pick<OtelExporterOptions, "captureContent">) => {
      const receiver = await startOtlpReceiver();
      receivers.push(receiver);
      const rt = createRuntime();
      new OtelExporter({ projection: "full", endpoint: `${receiver.url}/v1/traces`, logs: true, ...options }).register(rt);
      await rt.withScope("agent", () => void rt.mark("note.taken", { data: { note: SECRET_PROMPT }, severity: "warn" }), {
        category: "agent",
      });
      await rt.shutdown();
      const logs = receiver.received.filter((r) => r.signal === "logs");
      return logs.flatMap((r) =>
        (r.body["resourceLogs"] as Obj[]).flatMap((rl) => (rl["scopeLogs"] as Obj[]).flatMap((sl) => sl["logRecords"] as Obj[])),
      );
    };
    const [shown] = await records({});
    expect(JSON.stringify(shown!["body"])).toContain(SECRET_PROMPT);
    const withheld = await records({ captureContent: false });
    expect(withheld).toHaveLength(1);
    expect(JSON.stringify(withheld)).not.toContain(SECRET_PROMPT);
    expect(withheld[0]!["body"] ?? null).toBeNull();
    expect(attributesOf(withheld[0]!["attributes"])["nemo_relay.mark.name"]).toBe("note.taken");
    expect(withheld[0]!["severityText"]).toBe("WARN");
    expect(String(withheld[0]!["spanId"] ?? "")).not.toBe("");
  });

  it("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=false turns it off; the option in code wins", async () => {
    vi.stubEnv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "false");
    expect(allText((await agentRun()).gen_ai)).not.toContain(SECRET_PROMPT);
    expect(allText((await agentRun({ captureContent: true })).gen_ai)).toContain(SECRET_PROMPT);
  });
});

describe("gen_ai tool attributes", () => {
  it("writes gen_ai.tool.call.arguments and .result on tool spans and gen_ai.tool.definitions on chat spans", async () => {
    const spans = await agentRun();
    const tool = toolSpan(spans.gen_ai).attributes;
    expect(JSON.parse(String(tool["gen_ai.tool.call.arguments"]))).toEqual({ place: SECRET_ARG });
    expect(JSON.parse(String(tool["gen_ai.tool.call.result"]))).toEqual({ sky: SECRET_RESULT, temp_c: 3 });
    const chat = llmSpans(spans.gen_ai)[0]!.attributes;
    expect(JSON.parse(String(chat["gen_ai.tool.definitions"]))).toEqual([
      {
        type: "function",
        name: "forecast",
        description: "Weather forecast for a place",
        parameters: { type: "object", properties: { place: { type: "string" } }, required: ["place"] },
      },
    ]);
  });
});

describe("gen_ai conversation", () => {
  // Entries that recur in every later request are encoded once and joined: each call must still
  // list the whole conversation so far, in order, and nothing of another run.
  it("lists every earlier message of the run, in order, on each call", async () => {
    const spans = await agentRun();
    const inputs = llmSpans(spans.gen_ai).map((s) => JSON.parse(String(s.attributes["gen_ai.input.messages"])) as unknown[]);
    const system = { role: "system", parts: [{ type: "text", content: SECRET_SYSTEM }] };
    const user = { role: "user", parts: [{ type: "text", content: SECRET_PROMPT }] };
    expect(inputs[0]).toEqual([system, user]);
    expect(inputs[1]).toEqual([
      system,
      user,
      { role: "assistant", parts: [{ type: "tool_call", id: "call_1", name: "forecast", arguments: { place: SECRET_ARG } }] },
      { role: "tool", parts: [{ type: "tool_call_response", id: "call_1", response: JSON.stringify({ sky: SECRET_RESULT, temp_c: 3 }) }] },
    ]);
  });
});

describe("openinference conversation", () => {
  it("keeps the assistant tool-call turn in the second call's input, writes no empty content, encodes a tool's output once", async () => {
    const spans = await agentRun();
    const second = llmSpans(spans.openinference)[1]!.attributes;
    expect(second["input.value"]).toBe(
      `system: ${SECRET_SYSTEM}\n\nuser: ${SECRET_PROMPT}\n\nassistant: Requested tools: forecast\n\ntool: Tool result omitted`,
    );
    expect(second).not.toHaveProperty("llm.input_messages.2.message.content");
    expect(second["llm.input_messages.2.message.tool_calls.0.tool_call.id"]).toBe("call_1");
    expect(JSON.parse(String(second["llm.input_messages.2.message.tool_calls.0.tool_call.function.arguments"]))).toEqual({
      place: SECRET_ARG,
    });
    const first = llmSpans(spans.openinference)[0]!.attributes;
    expect(first).not.toHaveProperty("llm.output_messages.0.message.content");
    expect(first["llm.output_messages.0.message.tool_calls.0.tool_call.function.name"]).toBe("forecast");
    const tool = toolSpan(spans.openinference).attributes;
    expect(JSON.parse(String(tool["output.value"]))).toEqual({ sky: SECRET_RESULT, temp_c: 3 });
    expect(tool["output.mime_type"]).toBe("application/json");
  });
});

describe("aliases", () => {
  it("false drops the <ns>.start.input.* / <ns>.end.output.* copies and keeps the data attributes", async () => {
    const on = await agentRun();
    const off = await agentRun({ aliases: false });
    for (const projection of ["full", "openinference"] as const) {
      const keysOn = on[projection].flatMap((s) => Object.keys(s.attributes));
      const keysOff = off[projection].flatMap((s) => Object.keys(s.attributes));
      expect(keysOn.some((k) => k.startsWith("nemo_relay.start.input"))).toBe(true);
      expect(keysOff.some((k) => k.startsWith("nemo_relay.start.input") || k.startsWith("nemo_relay.end.output"))).toBe(false);
      expect(keysOff.some((k) => k.startsWith("nemo_relay.start.data"))).toBe(true);
    }
  });
});
