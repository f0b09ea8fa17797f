import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OtelExporter } from "../../exporters/otel/index.js";
import { createClient } from "../../src/agent/index.js";
import { createRuntime, type Runtime } from "../../src/runtime/runtime.js";
import { openaiReply, startProvider } from "../support/agent-provider-server.js";
import { attr, readExported, startFileCollector, type Collector, type LogsRequest } from "../support/interop/collector.js";
import { phoenixSpans, startPhoenix, type Phoenix, type PhoenixSpan } from "../support/interop/phoenix.js";
import { eventually } from "../support/interop/program.js";

/**
 * Sessions, users and evaluations against a real Arize Phoenix (pinned, from PyPI) and a real
 * OpenTelemetry Collector. Two loop runs inside `runtime.withContext({ sessionId, userId })` are
 * one session in Phoenix (its sessions REST API and GraphQL). Phoenix takes traces only (it has no
 * OTLP logs endpoint), so an evaluation — a `gen_ai.evaluation.result` log record — goes to the
 * Collector next to it; from there the guide's recipe posts it to Phoenix's span annotations API.
 */
const SESSION = "interop-session-1";
const USER = "user-ada";

let phoenix: Phoenix;
let collector: Collector;
let provider: Awaited<ReturnType<typeof startProvider>>;
let runtime: Runtime;
let spans: PhoenixSpan[];
let judged: PhoenixSpan;

type LogRecord = NonNullable<LogsRequest["resourceLogs"][number]["scopeLogs"][number]["logRecords"]>[number] & { eventName?: string };

async function phoenixJson<T>(path: string, init?: RequestInit): Promise<T> {
  const response = await fetch(`${phoenix.url}${path}`, init);
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

beforeAll(async () => {
  [phoenix, collector] = await Promise.all([startPhoenix(), startFileCollector()]);
  provider = await startProvider([openaiReply("Order o-1 shipped."), openaiReply("It arrives Monday.")]);
  runtime = createRuntime();
  // Traces to Phoenix (OpenInference), the logs signal (evaluations) to the Collector.
  new OtelExporter({
    endpoint: `${phoenix.url}/v1/traces`,
    projection: "openinference",
    serviceName: "relaytrace-sessions",
    logs: { endpoint: `${collector.otlpHttp}/v1/logs` },
  }).register(runtime);
  const client = createClient({
    baseUrl: provider.url,
    style: "openai",
    model: "interop-model",
    apiKey: "k",
    runtime,
    agentName: "support-agent",
  });
  await runtime.withContext({ sessionId: SESSION, userId: USER, tags: ["interop"] }, async () => {
    await client.run("Where is order o-1?");
    await client.run("When does it arrive?");
  });
  await runtime.flush();
  spans = await eventually(
    "both runs' spans in Phoenix",
    () => phoenixSpans(phoenix),
    (s) => s.filter((x) => x.attributes["session.id"] === SESSION).length >= 4,
  );
  // The evaluation is made later, from the span as Phoenix shows it: by its ids.
  judged = spans.find((s) => s.span_kind === "LLM" && s.attributes["session.id"] === SESSION)!;
  runtime.recordEvaluation({
    name: "helpfulness",
    score: 0.9,
    label: "helpful",
    explanation: "answers the question",
    target: { traceId: judged.context.trace_id, spanId: judged.context.span_id },
  });
  await runtime.shutdown();
}, 300_000);
afterAll(async () => {
  await Promise.all([phoenix?.stop(), collector?.stop(), provider?.close()]);
});

describe("sessions in Phoenix", () => {
  it("every span of both runs carries the session and user ids", () => {
    const sessionSpans = spans.filter((s) => s.attributes["session.id"] === SESSION);
    expect(sessionSpans.map((s) => s.span_kind).sort()).toEqual(["AGENT", "AGENT", "LLM", "LLM"]);
    for (const s of sessionSpans) {
      expect(s.attributes["user.id"]).toBe(USER);
      expect(s.attributes["tag.tags"]).toEqual(["interop"]);
    }
  });

  it("Phoenix's sessions API has one session holding both traces, with the user id (GraphQL)", async () => {
    const { data: session } = await eventually(
      "the session in Phoenix",
      () => phoenixJson<{ data: { id: string; session_id: string; traces: { trace_id: string }[] } }>(`/v1/sessions/${SESSION}`),
      (s) => s.data.traces.length >= 2,
    );
    expect(session.session_id).toBe(SESSION);
    const traceIds = new Set(spans.filter((s) => s.attributes["session.id"] === SESSION).map((s) => s.context.trace_id));
    expect(new Set(session.traces.map((t) => t.trace_id))).toEqual(traceIds);
    const graphql = await phoenixJson<{ data: { node: { sessionId: string; userId: string | null; numTraces: number } } }>("/graphql", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        query: "query($id: ID!) { node(id: $id) { ... on ProjectSession { sessionId userId numTraces } } }",
        variables: { id: session.id },
      }),
    });
    expect(graphql.data.node).toEqual({ sessionId: SESSION, userId: USER, numTraces: 2 });
  });
});

describe("evaluations", () => {
  let record: LogRecord;
  beforeAll(async () => {
    const records = await eventually(
      "the evaluation log record in the Collector's file",
      async () =>
        (await readExported<LogsRequest>(collector.files.logs)).flatMap((r) =>
          r.resourceLogs.flatMap((rl) => rl.scopeLogs.flatMap((sl) => (sl.logRecords ?? []) as LogRecord[])),
        ),
      (all) => all.some((r) => attr(r.attributes, "gen_ai.evaluation.name") === "helpfulness"),
    );
    record = records.find((r) => attr(r.attributes, "gen_ai.evaluation.name") === "helpfulness")!;
  });

  it("reach the Collector as gen_ai.evaluation.result log records on the evaluated span", () => {
    expect(record.eventName).toBe("gen_ai.evaluation.result");
    expect(record.traceId).toBe(judged.context.trace_id);
    expect(record.spanId).toBe(judged.context.span_id);
    expect(attr(record.attributes, "gen_ai.evaluation.score.value")).toBe(0.9);
    expect(attr(record.attributes, "gen_ai.evaluation.score.label")).toBe("helpful");
    expect(attr(record.attributes, "gen_ai.evaluation.explanation")).toBe("answers the question");
  });

  it("Phoenix has no OTLP logs endpoint; the log record posted to its span annotations API shows on the span", async () => {
    const logs = await fetch(`${phoenix.url}/v1/logs`, { method: "POST", headers: { "content-type": "application/x-protobuf" }, body: "" });
    expect(logs.ok).toBe(false);
    // The guide's recipe: one annotation per gen_ai.evaluation.result record.
    await phoenixJson("/v1/span_annotations?sync=true", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        data: [
          {
            span_id: record.spanId,
            name: attr(record.attributes, "gen_ai.evaluation.name"),
            annotator_kind: "LLM",
            result: {
              score: attr(record.attributes, "gen_ai.evaluation.score.value"),
              label: attr(record.attributes, "gen_ai.evaluation.score.label"),
              explanation: attr(record.attributes, "gen_ai.evaluation.explanation"),
            },
          },
        ],
      }),
    });
    const { data } = await phoenixJson<{ data: { span_id: string; name: string; result: { score: number; label: string } }[] }>(
      `/v1/projects/default/span_annotations?span_ids=${judged.context.span_id}`,
    );
    expect(data.map((a) => [a.span_id, a.name, a.result.score, a.result.label])).toEqual([
      [judged.context.span_id, "helpfulness", 0.9, "helpful"],
    ]);
  });
});
