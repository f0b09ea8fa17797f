// runtime.recordEvaluation: a score for a run or a step becomes an ATOF mark and, over the OTel logs
// signal, the GenAI conventions' `gen_ai.evaluation.result` event carrying the evaluated span's
// ids, also when that span ended long ago or was recorded by another process. A real OTLP/HTTP
// receiver on loopback.
import { afterEach, describe, expect, it } from "vitest";
import { atofToAtif } from "../../exporters/atif/index.js";
import { OtelExporter } from "../../exporters/otel/index.js";
import type { MarkEvent } from "../../src/events/types.js";
import { RelaytraceError } from "../../src/runtime/errors.js";
import { createRuntime } from "../../src/runtime/runtime.js";
import { capturingRuntime } from "../support/capture.js";
import { attributesOf, logRecordsOf, spansOf, startOtlpReceiver, type OtlpReceiver } from "../support/otlp.js";

const receivers: OtlpReceiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

type Obj = Record<string, unknown>;

const logRecords = logRecordsOf;

describe("recordEvaluation", () => {
  it("is an ATOF mark under its target, with the evaluation as data and the target's traceparent", async () => {
    const { rt, settle } = capturingRuntime();
    let agentUuid = "";
    await rt.withScope(
      "agent",
      (scope) => {
        agentUuid = scope.uuid;
        rt.recordEvaluation({ name: "relevance", score: 0.8, label: "relevant", explanation: "cites the order" });
      },
      { category: "agent" },
    );
    const mark = (await settle()).find((e): e is MarkEvent => e.kind === "mark")!;
    expect(mark.name).toBe("gen_ai.evaluation.result");
    expect(mark.parent_uuid).toBe(agentUuid);
    expect(mark.data_schema).toEqual({ name: "relaytrace.evaluation", version: "1" });
    expect(mark.data).toEqual({ name: "relevance", score: 0.8, label: "relevant", explanation: "cites the order" });
    expect(mark.metadata).toEqual({ "otel.traceparent": `00-${agentUuid.replace(/-/g, "")}-${agentUuid.replace(/-/g, "").slice(16)}-01` });
  });

  it("reaches the logs signal with the evaluated span's ids: a span ended 5,000 spans ago, and a span by ids", async () => {
    const r = await startOtlpReceiver();
    receivers.push(r);
    const rt = createRuntime({ maxQueueSize: 100_000 });
    const exporter = new OtelExporter({ projection: "gen_ai", endpoint: `${r.url}/v1/traces`, protocol: "http/json", logs: true });
    exporter.register(rt);
    let handle: Parameters<typeof rt.recordEvaluation>[0]["target"];
    await rt.withScope("graded-run", (scope) => void (handle = scope), { category: "agent" });
    // Many spans later: no exporter still holds the graded run's span context.
    for (let i = 0; i < 5000; i++) await rt.withScope(`filler-${i}`, () => null);
    rt.recordEvaluation({ name: "user_feedback", label: "thumbs_down", score: 0, target: handle });
    const remote = { traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7" };
    rt.recordEvaluation({ name: "ci_eval", score: 1, target: remote });
    await rt.shutdown();
    expect(exporter.diagnostics()).toEqual([]);
    const graded = r.received
      .filter((x) => x.signal === "traces")
      .flatMap((x) => spansOf(x.body))
      .find((s) => String(s["name"]).endsWith("graded-run"))!;
    const records = logRecords(r.received);
    expect(records.map((l) => l["eventName"])).toEqual(["gen_ai.evaluation.result", "gen_ai.evaluation.result"]);
    const [feedback, ci] = records as [Obj, Obj];
    expect(attributesOf(feedback["attributes"])).toMatchObject({
      "gen_ai.evaluation.name": "user_feedback",
      "gen_ai.evaluation.score.label": "thumbs_down",
      "gen_ai.evaluation.score.value": 0,
    });
    expect([feedback["traceId"], feedback["spanId"]]).toEqual([graded["traceId"], graded["spanId"]]);
    expect(attributesOf(ci["attributes"])).toMatchObject({ "gen_ai.evaluation.name": "ci_eval", "gen_ai.evaluation.score.value": 1 });
    expect([ci["traceId"], ci["spanId"]]).toEqual([remote.traceId, remote.spanId]);
    // An evaluation is an event, never a span of its own.
    const spanNames = r.received.filter((x) => x.signal === "traces").flatMap((x) => spansOf(x.body).map((s) => String(s["name"])));
    expect(spanNames.some((n) => n.includes("evaluation"))).toBe(false);
  });

  it("lands in the ATIF trajectory: on the evaluated model call's step, and the run's own on the trajectory", async () => {
    const { rt, settle } = capturingRuntime();
    const reply = { choices: [{ message: { role: "assistant", content: "Done." } }], usage: { prompt_tokens: 1, completion_tokens: 1 } };
    await rt.withScope(
      "support-agent",
      async () => {
        await rt.executeLlm("openai.chat_completions", { content: { messages: [{ role: "user", content: "Hi" }] } }, async () => {
          rt.recordEvaluation({ name: "faithfulness", score: 0.5 }); // inside the call: it is the target
          return reply;
        });
        rt.recordEvaluation({ name: "task_success", label: "pass" }); // the run's own
      },
      { category: "agent" },
    );
    const [trajectory] = atofToAtif(await settle(), { includeMarks: false });
    const agentStep = trajectory!.steps.find((s) => s.source === "agent")!;
    expect(agentStep.extra?.["evaluations"]).toEqual([{ name: "faithfulness", score: 0.5 }]);
    expect(trajectory!.extra?.["evaluations"]).toEqual([{ name: "task_success", label: "pass" }]);
  });

  it("says so in the diagnostics when the logs signal is off", async () => {
    const r = await startOtlpReceiver();
    receivers.push(r);
    const rt = createRuntime();
    const exporter = new OtelExporter({ projection: "full", endpoint: `${r.url}/v1/traces`, protocol: "http/json" });
    exporter.register(rt);
    await rt.withScope("run", () => rt.recordEvaluation({ name: "relevance", score: 1 }));
    await rt.shutdown();
    expect(exporter.diagnostics().map((d) => d.code)).toContain("otel.evaluation_not_exported");
  });

  it("after shutdown() is refused with an error saying so, instead of returning an id for an evaluation no exporter receives", async () => {
    const r = await startOtlpReceiver();
    receivers.push(r);
    const rt = createRuntime();
    const exporter = new OtelExporter({ projection: "gen_ai", endpoint: `${r.url}/v1/traces`, protocol: "http/json", logs: true });
    exporter.register(rt);
    let handle: Parameters<typeof rt.recordEvaluation>[0]["target"];
    await rt.withScope("graded-run", (scope) => void (handle = scope), { category: "agent" });
    rt.recordEvaluation({ name: "before", score: 1, target: handle });
    await rt.shutdown();
    let refused: unknown;
    try {
      rt.recordEvaluation({ name: "after", score: 0, target: handle });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(RelaytraceError);
    expect((refused as Error).message).toMatch(/^recordEvaluation: the runtime is shut down \(shutdown\(\) was called\)/);
    await rt.forceFlush();
    const names = logRecords(r.received).map((l) => attributesOf(l["attributes"])["gen_ai.evaluation.name"]);
    expect(names).toEqual(["before"]);
  });

  it("rejects a wrong field with an error naming it, and records nothing", async () => {
    const { rt, settle } = capturingRuntime();
    const bad = (evaluation: unknown) => () => rt.recordEvaluation(evaluation as never);
    expect(bad({})).toThrow(/recordEvaluation: name must be a non-empty string/);
    expect(bad({ name: "x", score: Number.NaN })).toThrow(/score must be a finite number/);
    expect(bad({ name: "x", score: "1" })).toThrow(/score/);
    expect(bad({ name: "x", target: { traceId: "abc", spanId: "00f067aa0ba902b7" } })).toThrow(/target.traceId/);
    expect(bad({ name: "x", target: { traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "0000000000000000" } })).toThrow(
      /target.spanId/,
    );
    expect(bad({ name: "x", target: 7 })).toThrow(/target/);
    expect(bad({ name: "x", grade: 1 })).toThrow(/grade/);
    expect(bad(null)).toThrow(RelaytraceError);
    expect(await settle()).toEqual([]);
  });
});
