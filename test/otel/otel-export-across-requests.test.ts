// The span batcher of one OtelExporter shared by concurrent requests, as a Cloudflare Worker keeps
// it for its isolate: there an export request belongs to the Workers request that started it and is cancelled when
// that one ends, so every export must be started by a request whose forceFlush then waits for
// its answer (never from another export's answer, on behalf of a request that has moved on).
// Requests are async contexts here; the collector answers each export in the context of the
// request that sent it, as workerd delivers a fetch's response.
import { AsyncLocalStorage } from "node:async_hooks";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { SpanBatcher } from "../../exporters/otel/span-batcher.js";
import { DiagnosticCounter } from "../../src/wire/diagnostics.js";

interface SentExport {
  by: string | undefined;
  spans: string[];
  /** When it was answered, on the test's sequence (undefined: not yet). */
  answeredAt: number | undefined;
  done: (result: { code: number }) => void;
}

/** Yields to the event loop until `state()` stops changing: every promise chain set off has run. */
async function settled(state: () => number): Promise<void> {
  let before: number;
  do {
    before = state();
    await new Promise<void>((resolve) => setImmediate(resolve));
  } while (state() !== before);
}

let sequence = 0;
const tick = () => ++sequence;

/** A collector that answers when told, each answer in the context of the request that sent it. */
class ContextCollector implements SpanExporter {
  readonly sent: SentExport[] = [];

  constructor(private readonly requests: AsyncLocalStorage<string>) {}

  export(spans: ReadableSpan[], done: (result: { code: number }) => void): void {
    this.sent.push({ by: this.requests.getStore(), spans: spans.map((s) => s.name), answeredAt: undefined, done });
  }

  answer(sent: SentExport): void {
    sent.answeredAt = tick();
    const reply = () => sent.done({ code: 0 });
    if (sent.by === undefined) reply();
    else this.requests.run(sent.by, reply);
  }

  async shutdown(): Promise<void> {}
  async forceFlush(): Promise<void> {}
}

/** A finished span as the batcher sees it (name, attributes, events). */
const span = (name: string) => ({ name, attributes: {}, events: [] }) as unknown as ReadableSpan;

describe("an OtelExporter shared by concurrent requests", () => {
  it("starts every export in a request whose forceFlush waits for its answer, even with every slot taken", async () => {
    const requests = new AsyncLocalStorage<string>();
    const collector = new ContextCollector(requests);
    // One slot, one span per export, no timer: an export starts only from an offer or a flush.
    const batcher = new SpanBatcher(
      collector,
      { maxQueueSize: 100, maxExportBatchSize: 1, scheduledDelayMillis: 600_000, exportTimeoutMillis: 600_000, maxConcurrentExports: 1 },
      new DiagnosticCounter(),
    );
    const flushedAt = new Map<string, number>();
    // A's span takes the one slot; B's waits in the queue; each request then flushes.
    const request = (id: string) =>
      requests.run(id, async () => {
        expect(batcher.offer(span(`${id}-span`))).toBe(true);
        await batcher.forceFlush();
        flushedAt.set(id, tick());
      });
    const all = Promise.all([request("A"), request("B")]);
    let finished = false;
    void all.then(() => (finished = true));
    // One export at a time, each once everything the previous answer set off has run; the export
    // of B's span last of all, so that a flush that does not wait for it has every chance to end.
    while (!finished) {
      await settled(() => collector.sent.length + flushedAt.size);
      const waiting = collector.sent.filter((e) => e.answeredAt === undefined);
      if (finished) break;
      if (waiting.length === 0) throw new Error("a flush is waiting with no export left to answer");
      collector.answer(waiting.find((e) => !e.spans.includes("B-span")) ?? waiting[0]!);
    }
    expect(collector.sent.map((e) => e.spans)).toEqual([["A-span"], ["B-span"]]);
    for (const sent of collector.sent) {
      const flushed = sent.by === undefined ? undefined : flushedAt.get(sent.by);
      expect({ spans: sent.spans, answeredBeforeItsSenderFlushed: flushed !== undefined && sent.answeredAt! < flushed }).toEqual({
        spans: sent.spans,
        answeredBeforeItsSenderFlushed: true,
      });
    }
  });
});
