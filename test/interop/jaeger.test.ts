import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../support/interop/program.js";
import {
  jaegerTrace,
  jaegerTraces,
  parentOf,
  startJaeger,
  tag,
  type Jaeger,
  type JaegerSpan,
  type JaegerTrace,
} from "../support/interop/jaeger.js";
import { readmeCommands, runCurlLine, runRelaytraceLine, withPorts } from "../support/interop/readme-commands.js";
import { runAgentScenario, traceIdOf, type AgentScenarioResult } from "../support/interop/scenarios.js";
import { pinnedVersions } from "../support/interop/tools.js";

/**
 * relaytrace's spans in a real Jaeger (built from the Go module proxy at the pinned version),
 * read back through Jaeger's HTTP query API: what a user sees in the Jaeger UI.
 */
let jaeger: Jaeger;

beforeAll(async () => {
  jaeger = await startJaeger();
});
afterAll(async () => {
  await jaeger?.stop();
});

function byName(trace: JaegerTrace, name: string): JaegerSpan[] {
  return trace.spans.filter((s) => s.operationName === name);
}
function only(trace: JaegerTrace, name: string): JaegerSpan {
  const spans = byName(trace, name);
  expect(spans.map((s) => s.operationName)).toEqual([name]);
  return spans[0]!;
}

/** Waits until Jaeger holds `count` spans of the trace (batches arrive separately). */
async function traceWithSpans(traceId: string, count: number): Promise<JaegerTrace> {
  return (await eventually(
    `trace ${traceId} with ${count} spans`,
    () => jaegerTrace(jaeger, traceId),
    (t) => (t?.spans.length ?? 0) >= count,
  ))!;
}

/** The demo prints its span tree: one line per span, `name (KIND, STATUS) …`. */
function printedTree(stdout: string): { name: string; kind: string; status: string }[] {
  const start = stdout.indexOf("Spans (full projection):");
  const lines = stdout.slice(start).split("\n").slice(1);
  const spans: { name: string; kind: string; status: string }[] = [];
  for (const line of lines) {
    const m = /^[│├└─ ]*(\S[^(]*?) \((\w+), (\w+)\)/.exec(line);
    if (!m) break;
    spans.push({ name: m[1]!, kind: m[2]!, status: m[3]! });
  }
  return spans;
}

describe("Jaeger", () => {
  it("the documented Jaeger commands: the demo lands under relaytrace-demo with the spans it prints", async () => {
    const [docker, demo, curl] = await readmeCommands("jaeger");
    expect(docker).toContain(`jaeger:${pinnedVersions()["JAEGER_IMAGE_TAG"]}`);
    expect(docker).toContain("-p 4318:4318");
    expect(docker).toContain("-p 16686:16686");
    const ports = { 4318: jaeger.otlpHttp.replace("http://", ""), 16686: jaeger.query.replace("http://", "") };
    const printed = printedTree(await runRelaytraceLine(withPorts(demo!, ports)));
    expect(printed.length).toBeGreaterThan(5);
    const [trace] = await eventually(
      "a relaytrace-demo trace",
      () => jaegerTraces(jaeger, "relaytrace-demo"),
      (ts) => ts.length > 0 && ts[0]!.spans.length >= printed.length,
    );
    expect(trace!.spans).toHaveLength(printed.length);
    expect(trace!.processes[trace!.spans[0]!.processID]!.serviceName).toBe("relaytrace-demo");
    const seen = trace!.spans.map((s) => ({
      name: s.operationName,
      kind: String(tag(s, "span.kind") ?? "internal").toUpperCase(),
      status: String(tag(s, "otel.status_code") ?? "UNSET"),
    }));
    const order = (a: { name: string; kind: string; status: string }) => `${a.name}|${a.kind}|${a.status}`;
    expect(seen.map(order).sort()).toEqual(printed.map(order).sort());
    // The documented query is Jaeger's own API answering with that trace.
    const answer = (await runCurlLine(withPorts(curl!, ports))) as { data: JaegerTrace[] };
    expect(answer.data.map((t) => t.traceID)).toEqual([trace!.traceID]);
  });

  const forms = [
    { form: "json", protocol: "http/json" as const },
    { form: "protobuf", protocol: "http/protobuf" as const },
  ];
  for (const { form, protocol } of forms) {
    describe(`an agent run halted in one process and resumed in another, over OTLP/HTTP ${form}`, () => {
      let run: AgentScenarioResult;
      let trace: JaegerTrace;
      const service = `relaytrace-interop-${form}`;

      beforeAll(async () => {
        run = await runAgentScenario({ otlp: jaeger.otlpHttp, projection: "full", serviceName: service, otel: { protocol } });
        expect(run.first.status).toBe("pending");
        expect(run.second.status).toBe("done");
        // Process 1: agent, 2 llm, 3 tools, 3 pending-mark spans; process 2: agent, llm.
        trace = await traceWithSpans(traceIdOf(run.traceparents[0]!), 11);
      }, 90_000);

      it("is one trace under the service name, across both processes, with every span", () => {
        expect(new Set(run.traceparents.map(traceIdOf)).size).toBe(1);
        expect(trace.traceID).toBe(traceIdOf(run.traceparents[0]!));
        expect(trace.spans).toHaveLength(11);
        for (const span of trace.spans) expect(trace.processes[span.processID]!.serviceName).toBe(service);
        expect(run.first.diagnostics.filter((d) => d.code.startsWith("otel."))).toEqual([]);
        expect(run.second.diagnostics.filter((d) => d.code.startsWith("otel."))).toEqual([]);
      });

      it("keeps parent/child structure: the resumed agent span is a child of the halted one", () => {
        const agents = byName(trace, "billing-agent");
        expect(agents).toHaveLength(2);
        const root = agents.find((s) => parentOf(s) === undefined)!;
        const resumed = agents.find((s) => s !== root)!;
        expect(parentOf(resumed)).toBe(root.spanID);
        const llms = byName(trace, "openai.chat_completions");
        expect(llms).toHaveLength(3);
        expect(llms.filter((s) => parentOf(s) === root.spanID)).toHaveLength(2);
        expect(llms.filter((s) => parentOf(s) === resumed.spanID)).toHaveLength(1);
        for (const tool of ["check_stock", "lookup_order", "send_invoice"]) expect(parentOf(only(trace, tool))).toBe(root.spanID);
        expect(parentOf(only(trace, "mark:stock.audited"))).toBe(only(trace, "check_stock").spanID);
        expect(parentOf(only(trace, "mark:stock.low"))).toBe(only(trace, "check_stock").spanID);
        expect(parentOf(only(trace, "mark:tool.pending"))).toBe(only(trace, "send_invoice").spanID);
      });

      it("carries span kinds, status and attributes", () => {
        const llm = byName(trace, "openai.chat_completions").find(
          (s) => tag(s, "nemo_relay.start.metadata.turn") === 0 && parentOf(s) === parentOf(only(trace, "check_stock")),
        )!;
        expect(tag(llm, "span.kind")).toBe("client");
        expect(tag(only(trace, "check_stock"), "span.kind")).toBe("client");
        expect(tag(byName(trace, "billing-agent")[0]!, "span.kind") ?? "internal").toBe("internal");
        for (const span of trace.spans.filter((s) => !s.operationName.startsWith("mark:") && s.operationName !== "lookup_order"))
          expect(tag(span, "otel.status_code")).toBe("OK");
        expect(tag(llm, "nemo_relay.scope_type")).toBe("llm");
        expect(tag(llm, "nemo_relay.model_name")).toBe("interop-model");
        expect(JSON.parse(String(tag(llm, "nemo_relay.end.data.usage")))).toMatchObject({ prompt_tokens: 120, completion_tokens: 30 });
        expect(tag(only(trace, "check_stock"), "nemo_relay.tool.result.annotation")).toBe(JSON.stringify({ source: "warehouse-7" }));
        expect(tag(only(trace, "check_stock"), "nemo_relay.tool_call_id")).toBe("call_stock");
        expect(tag(only(trace, "check_stock"), "nemo_relay.start.data.sku")).toBe("sku-42");
        // A tool that threw: the model reads an error result, the span is in error with the thrown message.
        expect(tag(only(trace, "lookup_order"), "otel.status_code")).toBe("ERROR");
        expect(tag(only(trace, "lookup_order"), "otel.status_description")).toBe("order database unavailable");
        expect(tag(only(trace, "mark:tool.pending"), "nemo_relay.mark.category_profile.tool_call_id")).toBe("call_invoice");
        expect(tag(only(trace, "mark:stock.low"), "nemo_relay.mark.data.threshold")).toBe(10);
      });
    });
  }

  it("shows a tool the app ran through the runtime that threw as an error span with an exception event", async () => {
    const service = "relaytrace-interop-errors";
    await runAgentScenario({ otlp: jaeger.otlpHttp, projection: "full", serviceName: service });
    const traces = await eventually(
      "the reconcile trace",
      () => jaegerTraces(jaeger, service),
      (ts) => ts.some((t) => t.spans.some((s) => s.operationName === "charge_card")),
    );
    const trace = traces.find((t) => t.spans.some((s) => s.operationName === "charge_card"))!;
    const charge = only(trace, "charge_card");
    expect(parentOf(charge)).toBe(only(trace, "reconcile-orders").spanID);
    expect(tag(charge, "otel.status_code")).toBe("ERROR");
    expect(tag(charge, "otel.status_description")).toBe("card declined");
    expect(tag(charge, "error")).toBe(true);
    const events = charge.logs.map((l) => Object.fromEntries(l.fields.map((f) => [f.key, f.value])));
    expect(events).toContainEqual(expect.objectContaining({ event: "exception", "exception.type": "Error" }));
  });
});
