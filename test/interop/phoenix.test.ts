import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { phoenixSpans, startPhoenix, type Phoenix, type PhoenixSpan } from "../support/interop/phoenix.js";
import { eventually } from "../support/interop/program.js";
import { readmeCommands, runCurlLine, runRelaytraceLine, withPorts } from "../support/interop/readme-commands.js";
import { runAgentScenario, traceIdOf, type AgentScenarioResult } from "../support/interop/scenarios.js";
import { pinnedVersions } from "../support/interop/tools.js";

/**
 * The openinference projection in a real Arize Phoenix (from PyPI, pinned), read back through
 * Phoenix's own REST API: span kinds, token counts, messages and tool calls as Phoenix stores them.
 */
let phoenix: Phoenix;
let run: AgentScenarioResult;
let spans: PhoenixSpan[];

beforeAll(async () => {
  phoenix = await startPhoenix();
  // Phoenix takes OTLP/HTTP protobuf only (the exporter's default).
  run = await runAgentScenario({
    otlp: phoenix.url,
    projection: "openinference",
    serviceName: "relaytrace-phoenix",
  });
  const traceId = traceIdOf(run.traceparents[0]!);
  spans = (
    await eventually(
      "the agent trace's 11 spans in Phoenix",
      () => phoenixSpans(phoenix),
      (s) => s.filter((x) => x.context.trace_id === traceId).length >= 11,
    )
  ).filter((s) => s.context.trace_id === traceId);
}, 300_000);
afterAll(async () => {
  await phoenix?.stop();
});

const named = (name: string) => spans.filter((s) => s.name === name);

describe("Phoenix", () => {
  it("stores the whole halted-and-resumed trace with OpenInference span kinds", () => {
    expect(spans).toHaveLength(11);
    expect(named("billing-agent").map((s) => s.span_kind)).toEqual(["AGENT", "AGENT"]);
    expect(new Set(named("openai.chat_completions").map((s) => s.span_kind))).toEqual(new Set(["LLM"]));
    for (const tool of ["check_stock", "lookup_order", "send_invoice"]) expect(named(tool).map((s) => s.span_kind)).toEqual(["TOOL"]);
    const root = named("billing-agent").find((s) => s.parent_id === null)!;
    expect(named("billing-agent").find((s) => s !== root)!.parent_id).toBe(root.context.span_id);
  });

  it("has each model call's token counts and model", () => {
    const counts = named("openai.chat_completions")
      .map((s) => [
        s.attributes["llm.token_count.prompt"],
        s.attributes["llm.token_count.completion"],
        s.attributes["llm.token_count.total"],
      ])
      .sort((a, b) => Number(a[0]) - Number(b[0]));
    expect(counts).toEqual([
      [120, 30, 150],
      [180, 20, 200],
      [240, 16, 256],
    ]);
    for (const s of named("openai.chat_completions")) expect(s.attributes["llm.model_name"]).toBe("interop-model");
  });

  it("has input and output messages, and the tool calls the model made", () => {
    const first = named("openai.chat_completions").find((s) => s.attributes["llm.token_count.prompt"] === 120)!;
    expect(first.attributes["llm.input_messages.0.message.role"]).toBe("user");
    expect(first.attributes["llm.input_messages.0.message.content"]).toBe("Check sku-42 and order o-1, then bill acme 120 EUR");
    expect(first.attributes["llm.output_messages.0.message.role"]).toBe("assistant");
    expect(first.attributes["llm.output_messages.0.message.tool_calls.0.tool_call.function.name"]).toBe("check_stock");
    expect(JSON.parse(String(first.attributes["llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments"]))).toEqual({
      sku: "sku-42",
    });
    expect(first.attributes["llm.output_messages.0.message.tool_calls.1.tool_call.id"]).toBe("call_order");
    const last = named("openai.chat_completions").find((s) => s.attributes["llm.token_count.prompt"] === 240)!;
    expect(last.attributes["llm.output_messages.0.message.content"]).toBe("Invoice INV-7 sent to acme; sku-42 has 7 units.");
    // The resumed call's input holds the relayed tool's answer.
    const inputs = Object.entries(last.attributes)
      .filter(([k]) => /^llm\.input_messages\.\d+\.message\.content$/.test(k))
      .map(([, v]) => v);
    expect(inputs).toContain("invoice INV-7 for acme");
  });

  it("has each tool call's name, id, arguments and result", () => {
    const stock = named("check_stock")[0]!;
    expect(stock.attributes["tool.name"]).toBe("check_stock");
    expect(stock.attributes["tool_call.id"]).toBe("call_stock");
    expect(JSON.parse(String(stock.attributes["tool_call.function.arguments"]))).toEqual({ sku: "sku-42" });
    expect(String(stock.attributes["output.value"])).toContain("units");
    expect(named("lookup_order")[0]).toMatchObject({ status_code: "ERROR", status_message: "order database unavailable" });
  });

  it("the documented Phoenix commands name the pinned release", async () => {
    const [serve] = await readmeCommands("phoenix");
    expect(serve).toBe(`pip install arize-phoenix==${pinnedVersions()["PHOENIX_VERSION"]} && phoenix serve`);
  });

  // The demo sends with the exporter's default protocol, protobuf.
  it("the documented Phoenix commands: the openinference demo lands and Phoenix's API returns it", async () => {
    const [, demo, curl] = await readmeCommands("phoenix");
    const ports = { 6006: phoenix.url.replace("http://", "") };
    await runRelaytraceLine(withPorts(demo!, ports));
    const all = await eventually(
      "the demo's agent span",
      () => phoenixSpans(phoenix),
      (s) => s.some((x) => x.name === "weather-agent"),
    );
    expect(all.find((x) => x.name === "weather-agent")!.span_kind).toBe("AGENT");
    const answer = (await runCurlLine(withPorts(curl!, ports))) as { data: PhoenixSpan[] };
    expect(answer.data.length).toBeGreaterThan(0);
  });
});
