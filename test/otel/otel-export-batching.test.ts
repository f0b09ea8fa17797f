import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { OtelExporter } from "../../exporters/otel/index.js";
import { MAX_CONCURRENT_EXPORTS, spanBytes } from "../../exporters/otel/span-batcher.js";
import { createRuntime } from "../../src/runtime/runtime.js";
import { HeldSpanExporter } from "../support/held-span-exporter.js";
import { decodeOtlp, spansOf } from "../support/otlp.js";

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** An OTLP/HTTP receiver that keeps the raw bodies (decoded afterwards, so it answers as fast as a collector). */
async function rawReceiver(): Promise<{ url: string; bodies: Buffer[] }> {
  const bodies: Buffer[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      bodies.push(Buffer.concat(chunks));
      res.writeHead(200, { "content-type": "application/x-protobuf" });
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`, bodies };
}

const yieldToIo = () => new Promise<void>((resolve) => setImmediate(resolve));

// The loops below hold the event loop for long stretches, and a loaded machine can stretch one past
// the 3 s default request timeout while the collector's answer waits unread, which fails a request
// that did succeed. What these tests check is batching, the queue and the in-flight bound, so the
// timeout is set beyond any run (giving up on a silent collector is tested in reliability-collector).
const UNHURRIED = 60_000;

describe("span export keeps up with a fast sequential tool loop", () => {
  it("exports every span of 20,000 back-to-back tool calls at default batch settings, none dropped", async () => {
    const receiver = await rawReceiver();
    const rt = createRuntime();
    const exporter = new OtelExporter({ projection: "openinference", endpoint: receiver.url, timeoutMillis: UNHURRIED });
    exporter.register(rt);
    // The exporter imports its OTLP encoding when it is made: on Node that is done within one turn of
    // the event loop, under the test runner's module loader it takes many, more than this loop yields.
    await exporter.forceFlush();
    const calls = 20_000;
    for (let i = 0; i < calls; i++) {
      await rt.executeTool("lookup_weather", { city: "Paris", day: i }, async () => ({ result: { temperature: 21 } }), {
        toolCallId: `call_${i}`,
      });
      if (i % 1024 === 1023) await yieldToIo(); // an app's tools do I/O now and then; a batch fills well within one turn
    }
    await rt.shutdown();
    expect(exporter.diagnostics()).toEqual([]);
    const requests = receiver.bodies.map((body) => spansOf(decodeOtlp("traces", "application/x-protobuf", body)));
    expect(new Set(requests.flatMap((spans) => spans.map((s) => String(s["spanId"])))).size).toBe(calls);
    // full batches of the default size, one request per batch
    expect(Math.max(...requests.map((spans) => spans.length))).toBe(512);
  }, 60_000);

  it("keeps at most MAX_CONCURRENT_EXPORTS requests in flight while the collector is slow, and sends the rest when it answers", async () => {
    const collector = new HeldSpanExporter();
    const rt = createRuntime();
    const exporter = new OtelExporter({
      projection: "gen_ai",
      spanExporter: collector,
      maxExportBatchSize: 4,
      maxQueueSize: 64,
      scheduledDelayMillis: 60_000,
      timeoutMillis: UNHURRIED,
    });
    exporter.register(rt);
    const inFlight = MAX_CONCURRENT_EXPORTS * 4;
    const calls = inFlight + 64 + 4;
    for (let i = 0; i < calls; i++) await rt.executeTool("t", { i }, () => ({ result: i }));
    await rt.flush();
    expect(collector.inFlight).toBe(MAX_CONCURRENT_EXPORTS);
    expect(collector.spans.length).toBe(inFlight);
    // every slot holds a batch of 4, 64 spans wait in the queue, the last 4 find it full
    expect(exporter.diagnostics()).toContainEqual(expect.objectContaining({ code: "otel.spans_dropped", count: 4 }));
    const flushed = exporter.forceFlush();
    collector.release();
    await new Promise((r) => setTimeout(r, 0));
    collector.release(); // the queued batches, sent by the flush and the freed slots
    await flushed;
    expect(collector.spans.length).toBe(calls - 4);
    expect(collector.inFlight).toBe(0);
    await rt.shutdown();
  });

  it("bounds the queue by bytes as well as by spans: large spans past maxQueueBytes are dropped and counted, small ones still fit", async () => {
    const collector = new HeldSpanExporter();
    const rt = createRuntime();
    const exporter = new OtelExporter({
      projection: "full",
      spanExporter: collector,
      maxExportBatchSize: 512,
      maxQueueSize: 2048,
      maxQueueBytes: 1024 * 1024,
      scheduledDelayMillis: 60_000,
      timeoutMillis: UNHURRIED,
    });
    exporter.register(rt);
    const big = "x".repeat(100_000); // ~200 KB a span: the argument and the result, each as an attribute
    for (let i = 0; i < 20; i++) await rt.executeTool("read_file", { content: big }, () => ({ result: big }));
    await rt.flush();
    // 20 spans are far below the count bound, but only a few of them fit in 1 MiB
    const dropped = exporter.diagnostics().find((d) => d.code === "otel.spans_dropped")?.count ?? 0;
    expect(dropped).toBeGreaterThan(0);
    for (let i = 0; i < 10; i++) await rt.executeTool("ping", {}, () => ({ result: i }));
    await rt.flush();
    let flushed = false;
    const flush = exporter.forceFlush().then(() => (flushed = true));
    while (!flushed) {
      collector.release(); // answer whatever has been sent by now
      await new Promise((r) => setTimeout(r, 0));
    }
    await flush;
    const kept = collector.spans.filter((s) => s.name.endsWith("read_file"));
    expect(kept.length).toBe(20 - dropped);
    const keptBytes = kept.reduce((sum, span) => sum + spanBytes(span), 0);
    expect(keptBytes).toBeLessThanOrEqual(1024 * 1024); // what waited fit the bound…
    expect(keptBytes + spanBytes(kept[0]!)).toBeGreaterThan(1024 * 1024); // …and one more would not have
    expect(collector.spans.filter((s) => s.name.endsWith("ping")).length).toBe(10);
    await rt.shutdown();
  });

  it("a flush of a long queue sends it in batches, never more requests at once than MAX_CONCURRENT_EXPORTS (an OTLP exporter refuses more)", async () => {
    const collector = new HeldSpanExporter();
    const exporter = new OtelExporter({
      projection: "gen_ai",
      spanExporter: collector,
      maxExportBatchSize: 10,
      maxQueueSize: 10_000,
      scheduledDelayMillis: 60_000,
      timeoutMillis: UNHURRIED,
    });
    const event = (uuid: string, phase: "start" | "end", at: string) =>
      ({
        kind: "scope",
        scope_category: phase,
        atof_version: "0.1",
        uuid,
        parent_uuid: null,
        timestamp: at,
        name: "t",
        attributes: [],
        category: "tool",
        category_profile: null,
        data: null,
        data_schema: null,
        metadata: null,
      }) as const;
    for (let i = 0; i < 500; i++) {
      const uuid = `019ca945-3000-7000-8000-${String(i).padStart(12, "0")}`;
      exporter.onEvent(event(uuid, "start", "2026-03-01T12:00:00.000001Z"));
      exporter.onEvent(event(uuid, "end", "2026-03-01T12:00:00.000002Z"));
    }
    // the collector is silent: every slot holds a batch, 340 spans wait in the queue
    expect(collector.inFlight).toBe(MAX_CONCURRENT_EXPORTS);
    let done = false;
    const flushed = exporter.forceFlush().then(() => (done = true));
    let most = 0;
    while (!done) {
      most = Math.max(most, collector.inFlight);
      collector.release();
      await new Promise((r) => setTimeout(r, 0));
    }
    await flushed;
    expect(most).toBeLessThanOrEqual(MAX_CONCURRENT_EXPORTS);
    expect(collector.spans.length).toBe(500);
    expect(exporter.diagnostics()).toEqual([]);
  });
});
