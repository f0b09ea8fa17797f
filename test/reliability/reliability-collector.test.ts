import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { OtelExporter } from "../../exporters/otel/index.js";
import { AtofExporter } from "../../exporters/atof/index.js";
import { SpanCapture } from "../../exporters/testing/index.js";
import { createRuntime } from "../../src/runtime/runtime.js";
import {
  agentRun,
  deadPort,
  essence,
  hang,
  reply200,
  replyStatus,
  resetMidRequest,
  startCollector,
  type CollectorBehaviour,
  type FaultCollector,
} from "../support/fault-collector.js";

const TIMEOUT_MS = 1500;
const collectors: FaultCollector[] = [];
afterEach(async () => {
  await Promise.all(collectors.splice(0).map((c) => c.close()));
});

let baseline: ReturnType<typeof essence>;
let expectedSpans: number;
beforeAll(async () => {
  // The same run with no network exporter: the result every faulty run must reproduce.
  const runtime = createRuntime();
  const capture = new SpanCapture({ projection: "full" });
  capture.register(runtime);
  baseline = essence((await agentRun(runtime)).result);
  expectedSpans = (await capture.spans()).length;
  await runtime.shutdown();
  expect(baseline.status).toBe("done");
  expect(expectedSpans).toBeGreaterThanOrEqual(4);
});

/** Resolves with the elapsed ms, or rejects if `promise` has not settled after `capMs` (a liveness check, not a timing assertion). */
async function settlesWithin(promise: Promise<unknown>, capMs: number): Promise<number> {
  const t0 = performance.now();
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`did not settle within ${capMs} ms`)), capMs);
    }),
  ]).finally(() => clearTimeout(timer));
  return performance.now() - t0;
}

/** Runs the agent with OTLP and ATOF-stream exporters both pointed at `endpoint`; returns what the app and diagnostics saw. */
async function runAgainst(endpointUrl: string) {
  const runtime = createRuntime();
  const otel = new OtelExporter({
    projection: "full",
    endpoint: endpointUrl,
    protocol: "http/json",
    timeoutMillis: TIMEOUT_MS,
    scheduledDelayMillis: 60_000,
  });
  const atof = new AtofExporter({
    type: "stream",
    url: endpointUrl.replace("/v1/traces", "/atof"),
    timeoutMillis: 300,
    maxRetries: 2,
    retryBaseMillis: 5,
    flushIntervalMillis: 60_000,
  });
  otel.register(runtime);
  atof.register(runtime);
  const { result } = await agentRun(runtime);
  const shutdownMs = await settlesWithin(runtime.shutdown(), 6 * TIMEOUT_MS + 3000);
  const diagnostics = runtime.diagnostics();
  const count = (code: string) => diagnostics.find((d) => d.code === code)?.count ?? 0;
  return { result, shutdownMs, diagnostics, count };
}

function otlpBodies(c: FaultCollector): string[] {
  return c.bodies.filter((b) => b.includes("resourceSpans"));
}

function spansIn(body: string): number {
  const doc = JSON.parse(body) as { resourceSpans: { scopeSpans: { spans: unknown[] }[] }[] };
  return doc.resourceSpans.flatMap((r) => r.scopeSpans).flatMap((s) => s.spans).length;
}

describe("a collector that fails: the run is unaffected, spans are retried a bounded number of times, then dropped and counted", () => {
  it("collector down (nothing listening)", async () => {
    const port = await deadPort();
    const run = await runAgainst(`http://127.0.0.1:${port}/v1/traces`);
    expect(essence(run.result)).toEqual(baseline);
    expect(run.count("otel.export_failed")).toBeGreaterThanOrEqual(1);
    expect(run.count("otel.spans_not_exported")).toBe(expectedSpans);
    expect(run.count("atof.events_dropped")).toBeGreaterThan(0);
    console.info(`collector down: shutdown took ${run.shutdownMs.toFixed(0)} ms`);
  });

  const faults: [string, CollectorBehaviour, boolean][] = [
    ["answering 500 (not retryable)", replyStatus(500), false],
    ["answering 429 with Retry-After", replyStatus(429, { "retry-after": "1" }), true],
    ["answering 503", replyStatus(503), true],
    ["resetting the connection mid-request", resetMidRequest, true],
  ];
  for (const [label, behaviour, retryable] of faults) {
    it(label, async () => {
      const collector = await startCollector(behaviour, "/");
      collectors.push(collector);
      const run = await runAgainst(`${collector.url.replace(/\/$/, "")}/v1/traces`);
      expect(essence(run.result)).toEqual(baseline);
      const attempts = otlpBodies(collector).length;
      // one batch: 1 attempt, plus at most the SDK's 5 retries when the failure is retryable
      if (retryable) {
        expect(attempts).toBeGreaterThanOrEqual(2);
        expect(attempts).toBeLessThanOrEqual(6);
      } else {
        expect(attempts).toBe(1);
      }
      expect(run.count("otel.spans_not_exported")).toBe(expectedSpans);
      // the ATOF stream sink: 1 + maxRetries attempts, then its events are counted as dropped
      expect(collector.bodies.length - attempts).toBe(3);
      expect(run.count("atof.stream_failed")).toBe(1);
      console.info(`collector ${label}: ${attempts} OTLP attempt(s); shutdown took ${run.shutdownMs.toFixed(0)} ms`);
    });
  }

  it("hanging past the timeout", async () => {
    const collector = await startCollector(hang, "/");
    collectors.push(collector);
    const run = await runAgainst(`${collector.url.replace(/\/$/, "")}/v1/traces`);
    expect(essence(run.result)).toEqual(baseline);
    expect(run.count("otel.spans_not_exported") + run.count("otel.flush_failed") + run.count("otel.shutdown_failed")).toBeGreaterThan(0);
    expect(run.count("atof.events_dropped")).toBeGreaterThan(0);
    console.info(`collector hanging: shutdown took ${run.shutdownMs.toFixed(0)} ms`);
  });
});

describe("a collector that comes back", () => {
  it("spans held while it answered 503 arrive once it recovers", async () => {
    let failuresLeft = 1;
    const collector = await startCollector((i, req, res, body) => {
      if (body.includes("resourceSpans") && failuresLeft > 0) {
        failuresLeft--;
        replyStatus(503)(i, req, res, body);
      } else reply200(i, req, res, body);
    }, "/");
    collectors.push(collector);
    const run = await runAgainst(`${collector.url.replace(/\/$/, "")}/v1/traces`);
    expect(essence(run.result)).toEqual(baseline);
    const bodies = otlpBodies(collector);
    expect(bodies).toHaveLength(2);
    expect(bodies[1]).toBe(bodies[0]); // the same batch, resent
    expect(spansIn(bodies[1]!)).toBe(expectedSpans);
    expect(run.count("otel.spans_not_exported")).toBe(0);
  });

  it("ATOF lines held while the receiver was down arrive on the next flush", async () => {
    let up = false;
    const collector = await startCollector((i, req, res, body) => (up ? reply200 : replyStatus(503))(i, req, res, body), "/");
    collectors.push(collector);
    const runtime = createRuntime();
    const atof = new AtofExporter({
      type: "stream",
      url: `${collector.url}atof`,
      maxRetries: 5,
      retryBaseMillis: 20,
      flushIntervalMillis: 60_000,
    });
    atof.register(runtime);
    const { result } = await agentRun(runtime);
    expect(essence(result)).toEqual(baseline);
    const flushing = runtime.forceFlush();
    setTimeout(() => {
      up = true;
    }, 30);
    await flushing;
    await runtime.shutdown();
    const delivered = collector.bodies.at(-1)!.trim().split("\n");
    expect(delivered.length).toBeGreaterThan(5);
    expect(delivered.every((l) => typeof JSON.parse(l).uuid === "string")).toBe(true);
    expect(runtime.diagnostics().find((d) => d.code === "atof.events_dropped")).toBeUndefined();
  });
});
