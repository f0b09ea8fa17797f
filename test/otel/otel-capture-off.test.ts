// Content capture off means no content in any projection, whatever carries it: a canary is put
// in every place content can come from (system prompt, prompt, reply, tool arguments and
// result, tool definition schema, tool result annotation, mark data, content-bearing request
// parameters), a real agent loop runs against a scripted provider in each wire dialect, and
// every OTLP export (traces and logs, all three projections) that reaches a real receiver on
// 127.0.0.1 is searched for it. Names, a tool's description, ids and token counts stay.
import { afterEach, describe, expect, it, vi } from "vitest";
import { startScriptedProvider, type ScriptedProvider } from "../../exporters/testing/index.js";
import { OtelExporter, type OtelExporterOptions } from "../../exporters/otel/index.js";
import { createClient, createToolkit, defineTool } from "../../src/index.js";
import { createRuntime } from "../../src/runtime/runtime.js";
import type { Dialect } from "../../src/wire/types.js";
import { startOtlpReceiver, type OtlpReceiver } from "../support/otlp.js";

const CANARY = {
  system: "canary-system-harbour-master",
  prompt: "canary-prompt-locker-8841",
  reply: "canary-reply-raincoat",
  argument: "canary-argument-tromso",
  result: "canary-result-sleet",
  schema: "canary_schema_property",
  schemaText: "canary-schema-description",
  annotation: "canary-annotation-cache",
  mark: "canary-mark-note",
  responseFormat: "canary-response-format",
  prediction: "canary-prediction-text",
};
const TOOL_DESCRIPTION = "Weather forecast for a place";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const PROJECTIONS = ["full", "openinference", "gen_ai"] as const;

/** One loop run exported by every projection to a real OTLP receiver; returns each projection's export text. */
async function exportRun(style: Dialect, options: Pick<OtelExporterOptions, "captureContent"> = {}): Promise<Record<string, string>> {
  const provider: ScriptedProvider = await startScriptedProvider({
    style,
    turns: [
      {
        toolCalls: [{ id: "call_1", name: "forecast", arguments: { place: CANARY.argument } }],
        usage: { promptTokens: 20, completionTokens: 4 },
      },
      { text: CANARY.reply, usage: { promptTokens: 30, completionTokens: 6 } },
    ],
  });
  cleanups.push(() => provider.close());
  const rt = createRuntime();
  const receivers: Record<string, OtlpReceiver> = {};
  for (const projection of PROJECTIONS) {
    const receiver = await startOtlpReceiver();
    cleanups.push(() => receiver.close());
    receivers[projection] = receiver;
    new OtelExporter({ projection, endpoint: `${receiver.url}/v1/traces`, logs: true, markProjection: "tool", ...options }).register(rt);
  }
  rt.registerToolExecutionIntercept("annotate", 1, async (args, next) => ({
    ...(await next(args)),
    annotation: { note: CANARY.annotation },
  }));
  const forecast = defineTool({
    name: "forecast",
    description: TOOL_DESCRIPTION,
    inputSchema: {
      type: "object",
      properties: { place: { type: "string" }, [CANARY.schema]: { type: "string", description: CANARY.schemaText } },
      required: ["place"],
    },
    execute: () => ({ sky: CANARY.result }),
  });
  const client = createClient({
    baseUrl: provider.url,
    style,
    model: "scripted-model",
    apiKey: "sk-test",
    runtime: rt,
    systemPrompt: CANARY.system,
    requestParams: {
      temperature: 0.25,
      ...(style === "openai"
        ? {
            response_format: { type: "json_schema", json_schema: { name: "answer", schema: { description: CANARY.responseFormat } } },
            prediction: { type: "content", content: CANARY.prediction },
          }
        : {}),
    },
  });
  await rt.withScope(
    "session",
    async () => {
      rt.mark("note", { data: { text: CANARY.mark } });
      await client.run(CANARY.prompt, { toolkit: await createToolkit({ tools: [forecast] }) });
    },
    { category: "agent" },
  );
  await rt.shutdown();
  const texts: Record<string, string> = {};
  for (const projection of PROJECTIONS) texts[projection] = JSON.stringify(receivers[projection]!.received.map((r) => r.body));
  return texts;
}

function leaks(text: string): string[] {
  return Object.values(CANARY).filter((canary) => text.includes(canary));
}

describe("captureContent: false withholds every kind of content in every projection", () => {
  for (const style of ["openai", "openai-responses", "anthropic", "gemini"] as const) {
    it(`${style}: no canary reaches any export; names, the tool's description, tokens and numeric settings stay`, async () => {
      const on = await exportRun(style);
      // the canaries do reach the exports with capture on: the run puts content where the test looks
      for (const projection of PROJECTIONS) expect(leaks(on[projection]!).length, projection).toBeGreaterThan(5);
      expect(on["gen_ai"]).toContain(CANARY.schema);
      expect(on["full"]).toContain(CANARY.annotation);

      const off = await exportRun(style, { captureContent: false });
      for (const projection of PROJECTIONS) {
        const text = off[projection]!;
        expect(leaks(text), `${style} ${projection}`).toEqual([]);
        expect(text).toContain("forecast");
      }
      expect(off["gen_ai"]).toContain(TOOL_DESCRIPTION);
      expect(off["gen_ai"]).toContain("gen_ai.usage.input_tokens");
      expect(off["openinference"]).toContain("llm.token_count.prompt");
      expect(off["openinference"]).toMatch(/llm\.invocation_parameters.*temperature/);
    });
  }
});

describe("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT, read as the GenAI instrumentations read it", () => {
  const cases: [string, { spans: boolean; logs: boolean }][] = [
    ["false", { spans: false, logs: false }],
    ["NO_CONTENT", { spans: false, logs: false }],
    ["no_content", { spans: false, logs: false }],
    ["SPAN_ONLY", { spans: true, logs: false }],
    ["EVENT_ONLY", { spans: false, logs: true }],
    ["SPAN_AND_EVENT", { spans: true, logs: true }],
    ["True", { spans: true, logs: true }],
    ["yes-please", { spans: false, logs: false }],
  ];
  for (const [value, expected] of cases) {
    it(`${value}: content in spans ${expected.spans ? "on" : "off"}, in mark log records ${expected.logs ? "on" : "off"}`, async () => {
      vi.stubEnv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", value);
      const receiver = await startOtlpReceiver();
      cleanups.push(() => receiver.close());
      const rt = createRuntime();
      const exporter = new OtelExporter({ projection: "gen_ai", endpoint: `${receiver.url}/v1/traces`, logs: true });
      exporter.register(rt);
      await rt.executeTool("lookup", { q: CANARY.argument }, () => ({ result: CANARY.result }), { metadata: { k: 1 } });
      rt.mark("note", { data: { text: CANARY.mark } });
      await rt.shutdown();
      const spans = JSON.stringify(receiver.received.filter((r) => r.signal === "traces").map((r) => r.body));
      const logs = JSON.stringify(receiver.received.filter((r) => r.signal === "logs").map((r) => r.body));
      expect(spans.includes(CANARY.argument), "spans").toBe(expected.spans);
      expect(logs.includes(CANARY.mark), "logs").toBe(expected.logs);
      expect(logs).toContain("note");
      const invalid = exporter.diagnostics().find((d) => d.code === "otel.env_invalid");
      if (value === "yes-please") expect(invalid?.message).toMatch(/yes-please is not true, false, NO_CONTENT/);
      else expect(invalid).toBeUndefined();
    });
  }

  it("captureContent in code wins over the variable", async () => {
    vi.stubEnv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "NO_CONTENT");
    const on = await exportRun("openai", { captureContent: true });
    expect(on["gen_ai"]).toContain(CANARY.prompt);
  });
});
