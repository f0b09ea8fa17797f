import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { AtofExporter } from "../../exporters/atof/index.js";
import { createRuntime } from "../../src/runtime/runtime.js";
import { readAtofFile } from "../../src/events/atof-reader.js";
import type { AtofEvent, ScopeEvent } from "../../src/events/types.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "relaytrace-atof-oversized-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});

/** A real NDJSON receiver on loopback: every line it was sent, parsed. */
async function receiver(): Promise<{ url: string; events: AtofEvent[] }> {
  const events: AtofEvent[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      for (const line of Buffer.concat(chunks).toString("utf8").split("\n")) if (line !== "") events.push(JSON.parse(line) as AtofEvent);
      res.end();
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/atof`, events };
}

/** One tool call through a real runtime whose result is `result`, exported by `exporter`. */
async function toolCallReturning(exporter: AtofExporter, result: string): Promise<void> {
  const runtime = createRuntime();
  exporter.register(runtime);
  await runtime.executeTool("fetch_page", { url: "https://example.test" }, async () => ({ result }));
  await runtime.shutdown();
  await exporter.shutdown();
}

describe("ATOF exporters never lose an event for its size", () => {
  it("file: a 10M-character tool result (20 MB of UTF-8, past the 16 MiB buffer) is written whole, even with the start event held", async () => {
    const path = join(dir, "big.jsonl");
    const exporter = new AtofExporter({ type: "file", path });
    const result = "é".repeat(10_000_000);
    await toolCallReturning(exporter, result);
    expect(exporter.diagnostics()).toEqual([]);
    const read = await readAtofFile(path);
    const tool = read.events.filter((e): e is ScopeEvent => e.kind === "scope" && e.category === "tool");
    expect(tool.map((e) => e.scope_category)).toEqual(["start", "end"]);
    expect(JSON.stringify(tool[1]!.data)).toContain(result);
  });

  it("stream: an event larger than the buffer arrives with its payload replaced by a marker giving its size", async () => {
    const { url, events } = await receiver();
    const exporter = new AtofExporter({ type: "stream", url, maxBufferedBytes: 1024 * 1024, flushIntervalMillis: 0 });
    await toolCallReturning(exporter, "x".repeat(2_000_000));
    const tool = events.filter((e): e is ScopeEvent => e.kind === "scope" && e.category === "tool");
    expect(tool.map((e) => e.scope_category)).toEqual(["start", "end"]);
    const end = tool[1]!;
    expect(end.name).toBe("fetch_page");
    const omitted = (end.data as { "relaytrace.omitted": { bytes: number; reason: string } })["relaytrace.omitted"];
    expect(omitted.bytes).toBeGreaterThan(2_000_000);
    expect(omitted.reason).toMatch(/larger than the 1048576-byte limit/);
    expect(exporter.diagnostics().map((d) => d.code)).toEqual(["atof.payload_omitted"]);
  });
});
