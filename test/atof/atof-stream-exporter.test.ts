import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { AtofExporter } from "../../exporters/atof/index.js";
import { LineBuffer } from "../../exporters/atof/line-buffer.js";
import { serializeEvent } from "../../src/events/atof-serialize.js";
import type { MarkEvent } from "../../src/events/types.js";

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});

/** A real NDJSON receiver; `statuses` are answered in turn, then 200. */
async function receiver(statuses: number[] = []): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      res.statusCode = statuses.shift() ?? 200;
      res.end();
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/atof`, received };
}

function mark(i: number): MarkEvent {
  return {
    kind: "mark",
    atof_version: "0.1",
    uuid: `m${i}`,
    parent_uuid: null,
    timestamp: `2026-03-01T12:00:00.00000${i % 10}Z`,
    name: "note",
    category: "custom",
    category_profile: { subtype: "acme.note" },
    data: { i },
    data_schema: null,
    metadata: null,
  };
}

describe("AtofExporter stream sink", () => {
  it("POSTs NDJSON with its content type and the configured headers", async () => {
    const { url, received } = await receiver();
    const exporter = new AtofExporter({ type: "stream", url, headers: { authorization: "Bearer t0k", "Content-Type": "text/plain" } });
    const events = [mark(1), mark(2), mark(3)];
    exporter.export(events);
    await exporter.forceFlush();
    expect(received).toHaveLength(1);
    expect(received[0]!.body).toBe(events.map((e) => serializeEvent(e) + "\n").join(""));
    expect(received[0]!.headers["content-type"]).toBe("application/x-ndjson");
    expect(received[0]!.headers.authorization).toBe("Bearer t0k");
    expect(exporter.diagnostics()).toEqual([]);
    await exporter.shutdown();
  });

  it("splits into batches of maxBatchLines and keeps their order", async () => {
    const { url, received } = await receiver();
    const exporter = new AtofExporter({ type: "stream", url, maxBatchLines: 2 });
    exporter.export([mark(1), mark(2), mark(3), mark(4), mark(5)]);
    await exporter.shutdown();
    expect(
      received.map((r) =>
        r.body
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l).uuid),
      ),
    ).toEqual([["m1", "m2"], ["m3", "m4"], ["m5"]]);
  });

  it("bounds its buffer in UTF-8 bytes: multi-byte text counts what it takes on the wire, and the rest is counted as dropped", async () => {
    const { url, received } = await receiver();
    const wide = (i: number): MarkEvent => ({ ...mark(i), data: { text: "€".repeat(400) } });
    const lineBytes = Buffer.byteLength(serializeEvent(wide(1))) + 1;
    // Room for 2 lines in bytes, though 4 would fit if the bound counted string length.
    const maxBufferedBytes = lineBytes * 2 + 10;
    expect(serializeEvent(wide(1)).length * 4).toBeLessThan(maxBufferedBytes);
    const exporter = new AtofExporter({ type: "stream", url, maxBufferedBytes, flushIntervalMillis: 60_000 });
    exporter.export([1, 2, 3, 4, 5].map(wide));
    await exporter.shutdown();
    expect(
      received.flatMap((r) =>
        r.body
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l)),
      ),
    ).toEqual([wide(1), wide(2)]);
    expect(exporter.diagnostics()).toEqual([expect.objectContaining({ code: "atof.events_dropped", count: 3 })]);
  });

  it("bounds a line written in pieces (an LLM event's body) by its UTF-8 bytes as well", () => {
    // Three-byte characters: each line is 60,007 bytes on the wire but 20,006 code units long.
    const line = ['{"text":"', "€".repeat(20_000), '"}'];
    const bytes = Buffer.byteLength(line.join("")) + 1;
    const buffer = new LineBuffer(100, bytes * 2 + 10);
    expect(buffer.push(line)).toBe(true);
    expect(buffer.push(line)).toBe(true); // fits by its bytes, though not by three bytes a code unit
    expect(buffer.push(line)).toBe(false);
    expect(buffer.takeAll().bytes.toString("utf8")).toBe(`${line.join("")}\n${line.join("")}\n`);
  });

  it("retries a failed POST and delivers the same batch", async () => {
    const { url, received } = await receiver([500]);
    const exporter = new AtofExporter({ type: "stream", url, retryBaseMillis: 1 });
    exporter.export([mark(1), mark(2)]);
    await exporter.forceFlush();
    expect(received).toHaveLength(2);
    expect(received[1]!.body).toBe(received[0]!.body);
    const codes = exporter.diagnostics().map((d) => d.code);
    expect(codes).toContain("atof.stream_retry");
    expect(codes).not.toContain("atof.stream_failed");
    expect(codes).not.toContain("atof.events_dropped");
    await exporter.shutdown();
  });

  it("gives up after maxRetries on persistent errors and counts the dropped events", async () => {
    const { url, received } = await receiver([503, 503, 503]);
    const exporter = new AtofExporter({ type: "stream", url, maxRetries: 2, retryBaseMillis: 1 });
    exporter.export([mark(1), mark(2)]);
    await exporter.forceFlush();
    expect(received).toHaveLength(3);
    const failed = exporter.diagnostics().find((d) => d.code === "atof.stream_failed");
    expect(failed?.message).toMatch(/3 attempts: HTTP 503/);
    expect(exporter.diagnostics().find((d) => d.code === "atof.events_dropped")?.count).toBe(2);
    // A later batch goes through once the receiver recovers.
    exporter.onEvent(mark(3));
    await exporter.forceFlush();
    expect(received.at(-1)!.body).toContain('"uuid":"m3"');
    await exporter.shutdown();
  });

  it("counts a failure when the receiver is down, without throwing", async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const { port } = server.address() as AddressInfo;
    await new Promise((r) => server.close(r));
    const exporter = new AtofExporter({ type: "stream", url: `http://127.0.0.1:${port}/`, maxRetries: 1, retryBaseMillis: 1 });
    expect(() => exporter.export([mark(1), mark(2)])).not.toThrow();
    await expect(exporter.shutdown()).resolves.toBeUndefined();
    const diags = exporter.diagnostics();
    expect(diags.find((d) => d.code === "atof.stream_failed")?.message).toMatch(/ECONNREFUSED|connect/i);
    expect(diags.find((d) => d.code === "atof.events_dropped")?.count).toBe(2);
  });

  it("times out a receiver that never answers", async () => {
    const server = createServer(() => {
      /* never responds */
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const exporter = new AtofExporter({ type: "stream", url, timeoutMillis: 50, maxRetries: 0 });
    exporter.onEvent(mark(1));
    await exporter.forceFlush();
    expect(exporter.diagnostics().find((d) => d.code === "atof.stream_failed")?.message).toMatch(/after 1 attempt: /);
    await exporter.shutdown();
  });

  it("rejects a url that is not http(s)", () => {
    expect(() => new AtofExporter({ type: "stream", url: "not a url" })).toThrow(/not a valid URL/);
    expect(() => new AtofExporter({ type: "stream", url: "file:///tmp/x" })).toThrow(/http or https/);
  });
});
