import { afterEach, describe, expect, it, vi } from "vitest";
import { OtelExporter } from "../../exporters/otel/index.js";
import { createRuntime } from "../../src/runtime/runtime.js";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedExport } from "../support/otlp.js";

const receivers: OtlpReceiver[] = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

async function receiver(): Promise<OtlpReceiver> {
  const r = await startOtlpReceiver();
  receivers.push(r);
  return r;
}

type Obj = Record<string, unknown>;
const list = (v: unknown): Obj[] => (Array.isArray(v) ? (v as Obj[]) : []);

/** Log records per logs request, in arrival order. */
function recordsPerRequest(received: ReceivedExport[]): number[] {
  return received
    .filter((r) => r.signal === "logs")
    .map((r) => list(r.body["resourceLogs"]).flatMap((rl) => list(rl["scopeLogs"]).flatMap((sl) => list(sl["logRecords"]))).length);
}

/** Five marks in one agent scope through an exporter with logs on (traces off); returns the exporter. */
async function fiveMarks(r: OtlpReceiver): Promise<OtelExporter> {
  vi.stubEnv("OTEL_TRACES_EXPORTER", "none");
  const rt = createRuntime();
  const exporter = new OtelExporter({ projection: "full", logs: { endpoint: `${r.url}/v1/logs` } });
  exporter.register(rt);
  await rt.withScope(
    "agent",
    () => {
      for (let i = 0; i < 5; i++) rt.mark(`step-${i}`);
    },
    { category: "agent" },
  );
  await rt.shutdown();
  return exporter;
}

describe("the batch log record processor follows OTEL_BLRP_*", () => {
  it("OTEL_BLRP_MAX_EXPORT_BATCH_SIZE bounds the records of each logs request", async () => {
    const r = await receiver();
    // a long schedule delay: only a full batch or the shutdown sends, whatever the machine's speed
    vi.stubEnv("OTEL_BLRP_SCHEDULE_DELAY", "600000");
    await fiveMarks(r);
    expect(recordsPerRequest(r.received)).toEqual([5]);
    r.received.length = 0;
    vi.stubEnv("OTEL_BLRP_MAX_EXPORT_BATCH_SIZE", "2");
    await fiveMarks(r);
    expect(recordsPerRequest(r.received)).toEqual([2, 2, 1]);
  });

  it("OTEL_BLRP_MAX_QUEUE_SIZE bounds the waiting records: past it they are dropped (the batch never exceeds the queue)", async () => {
    const r = await receiver();
    vi.stubEnv("OTEL_BLRP_SCHEDULE_DELAY", "600000");
    vi.stubEnv("OTEL_BLRP_MAX_QUEUE_SIZE", "2");
    await fiveMarks(r);
    // Five records reach the processor in one burst (the logs SDK loads after the marks are
    // emitted): no request carries more than the queue holds, and what found the queue full is
    // dropped. How many leave before the queue fills depends on when the processor dequeues its
    // first batch, so the count is bounded, not fixed.
    const sizes = recordsPerRequest(r.received);
    expect(sizes.length).toBeGreaterThan(0);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(2);
    expect(sizes.reduce((a, b) => a + b, 0)).toBeLessThan(5);
  });

  it("a malformed or zero value is reported and the specification's default used", async () => {
    const r = await receiver();
    vi.stubEnv("OTEL_BLRP_SCHEDULE_DELAY", "600000");
    vi.stubEnv("OTEL_BLRP_MAX_EXPORT_BATCH_SIZE", "0");
    vi.stubEnv("OTEL_BLRP_EXPORT_TIMEOUT", "soon");
    const exporter = await fiveMarks(r);
    expect(recordsPerRequest(r.received)).toEqual([5]);
    const messages = exporter.diagnostics().find((d) => d.code === "otel.env_invalid")?.message ?? "";
    expect(exporter.diagnostics().find((d) => d.code === "otel.env_invalid")?.count).toBe(2);
    expect(messages).toMatch(/OTEL_BLRP_/);
  });
});

describe("the periodic metric reader follows OTEL_METRIC_EXPORT_*", () => {
  it("a timeout longer than the interval is cut to the interval instead of breaking the exporter", async () => {
    const r = await receiver();
    vi.stubEnv("OTEL_TRACES_EXPORTER", "none");
    vi.stubEnv("OTEL_METRIC_EXPORT_INTERVAL", "600000");
    vi.stubEnv("OTEL_METRIC_EXPORT_TIMEOUT", "900000");
    const rt = createRuntime();
    const exporter = new OtelExporter({ projection: "full", metrics: { endpoint: `${r.url}/v1/metrics` } });
    exporter.register(rt);
    rt.metric("x", [{ name: "n", kind: "counter", valueType: "u64", value: 1 }]);
    await rt.shutdown();
    expect(r.received.length).toBeGreaterThan(0);
    expect(r.received.every((x) => x.signal === "metrics")).toBe(true);
    expect(exporter.diagnostics()).toEqual([]);
  });

  it("OTEL_METRIC_EXPORT_INTERVAL=0 is reported, not passed to the reader", async () => {
    vi.stubEnv("OTEL_TRACES_EXPORTER", "none");
    vi.stubEnv("OTEL_METRIC_EXPORT_INTERVAL", "0");
    const r = await receiver();
    const exporter = new OtelExporter({ projection: "full", metrics: { endpoint: `${r.url}/v1/metrics` } });
    expect(exporter.diagnostics().map((d) => d.code)).toEqual(["otel.env_invalid"]);
    await exporter.shutdown();
  });
});
