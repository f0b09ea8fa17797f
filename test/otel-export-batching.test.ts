import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { OtelExporter } from "../exporters/otel/index.js";
import { MAX_CONCURRENT_EXPORTS } from "../exporters/otel/span-batcher.js";
import { createRuntime } from "../src/runtime/runtime.js";
import { HeldSpanExporter } from "./support/held-span-exporter.js";
import { decodeOtlp, spansOf } from "./support/otlp.js";

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

describe("span export keeps up with a fast sequential tool loop", () => {
  it("exports every span of 20,000 back-to-back tool calls at default settings, none dropped", async () => {
    const receiver = await rawReceiver();
    const rt = createRuntime();
    const exporter = new OtelExporter({ projection: "openinference", endpoint: receiver.url });
    exporter.register(rt);
    const calls = 20_000;
    for (let i = 0; i < calls; i++) {
      await rt.executeTool("lookup_weather", { city: "Paris", day: i }, async () => ({ result: { temperature: 21 } }), { toolCallId: `call_${i}` });
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
    const exporter = new OtelExporter({ projection: "gen_ai", spanExporter: collector, maxExportBatchSize: 4, maxQueueSize: 64, scheduledDelayMillis: 60_000 });
    exporter.register(rt);
    for (let i = 0; i < 100; i++) await rt.executeTool("t", { i }, () => ({ result: i }));
    await rt.flush();
    expect(collector.inFlight).toBe(MAX_CONCURRENT_EXPORTS);
    expect(collector.spans.length).toBe(MAX_CONCURRENT_EXPORTS * 4);
    // 100 spans: 32 in flight, 64 queued, 4 past the queue
    expect(exporter.diagnostics()).toContainEqual(expect.objectContaining({ code: "otel.spans_dropped", count: 100 - 32 - 64 }));
    const flushed = exporter.forceFlush();
    collector.release();
    await new Promise((r) => setTimeout(r, 0));
    collector.release(); // the queued batches, sent by the flush and the freed slots
    await flushed;
    expect(collector.spans.length).toBe(96);
    expect(collector.inFlight).toBe(0);
    await rt.shutdown();
  });
});
