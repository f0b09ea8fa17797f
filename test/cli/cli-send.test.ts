import { appendFile, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { parseAtof } from "../../src/events/atof-reader.js";
import type { AtofEvent } from "../../src/events/types.js";
import { SpanCapture } from "../../exporters/testing/span-capture.js";
import { runDemo } from "../../src/cli/demo-scenario.js";
import { main } from "../../src/cli/main.js";
import {
  deadPort,
  reply200,
  replyStatus,
  startCollector,
  type CollectorBehaviour,
  type FaultCollector,
} from "../support/fault-collector.js";
import { capturedIo } from "../support/cli-io.js";

interface OtlpBody {
  resourceSpans: {
    resource: { attributes: { key: string; value: { stringValue?: string } }[] };
    scopeSpans: { spans: { spanId: string; name: string; status?: { code?: number } }[] }[];
  }[];
}

const collectors: FaultCollector[] = [];
async function collector(behaviour: CollectorBehaviour): Promise<FaultCollector> {
  const c = await startCollector(behaviour);
  collectors.push(c);
  return c;
}
afterEach(async () => {
  await Promise.all(collectors.splice(0).map((c) => c.close()));
});

const spansOf = (c: FaultCollector) =>
  c.bodies.flatMap((b) => (JSON.parse(b) as OtlpBody).resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)));

let work: string;
let atof: string;
let events: AtofEvent[];

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "relaytrace-send-"));
  const demo = await runDemo({ outDir: join(work, "demo"), projection: "full" });
  atof = demo.atofPath;
  events = parseAtof(await readFile(atof, "utf8")).events;
});

async function expectedSpanIds(evts: readonly AtofEvent[]): Promise<string[]> {
  const capture = new SpanCapture({ projection: "full" });
  for (const e of evts) capture.onEvent(e);
  await capture.shutdown();
  return (await capture.spans()).map((s) => s.spanContext().spanId).sort();
}

describe("relaytrace send", () => {
  it("replays an ATOF file to a collector: every span the projection makes, with the service name, exit 0", async () => {
    const c = await collector(reply200);
    const io = capturedIo();
    expect(await main(["send", atof, "--otlp", c.url, "--service-name", "replayed"], io)).toBe(0);
    const spans = spansOf(c);
    expect(spans.map((s) => s.spanId).sort()).toEqual(await expectedSpanIds(events));
    const service = (JSON.parse(c.bodies[0]!) as OtlpBody).resourceSpans[0]!.resource.attributes.find((a) => a.key === "service.name");
    expect(service?.value.stringValue).toBe("replayed");
    expect(io.stderr.at(-1)).toBe(`sent ${spans.length} spans to ${c.url}: ${spans.length} accepted`);
  });

  it("streams a large file in batches, one request at a time while the collector is slow, losing nothing", async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const c = await collector((_i, _req, res) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      setTimeout(() => {
        inFlight--;
        reply200(0, _req, res, "");
      }, 20);
    });
    const lines: string[] = [];
    const big: AtofEvent[] = [];
    const ev = (cat: "start" | "end", i: number, us: number): AtofEvent => ({
      kind: "scope",
      scope_category: cat,
      atof_version: "0.1",
      uuid: `00000000-0000-7000-8000-${String(i + 1).padStart(12, "0")}`,
      parent_uuid: null,
      timestamp: 1_800_000_000_000_000 + us,
      name: `call-${i}`,
      attributes: [],
      category: "tool",
      category_profile: null,
      data: null,
      data_schema: null,
      metadata: { "otel.status_code": "OK" },
    });
    for (let i = 0; i < 3000; i++) big.push(ev("start", i, i * 10), ev("end", i, i * 10 + 5));
    big.push(ev("start", 3000, 40_000)); // never ends: sent as an error, not lost
    for (const e of big) lines.push(JSON.stringify(e));
    const file = join(work, "big.jsonl");
    await writeFile(file, lines.join("\n") + "\n");
    const io = capturedIo();
    expect(await main(["send", file, "--otlp", c.url.replace("/v1/traces", "")], io)).toBe(0);
    expect(c.bodies.length).toBeGreaterThan(5);
    expect(maxInFlight).toBe(1);
    const spans = spansOf(c);
    expect(spans).toHaveLength(3001);
    expect(spans.find((s) => s.name === "call-3000")?.status?.code).toBe(2);
    expect(io.progressLines.some((l) => /sending big\.jsonl +\d+% \(/.test(l))).toBe(true);
  });

  it("exits 1 and says why when the collector rejects part of a batch", async () => {
    const c = await collector((_i, _req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ partialSuccess: { rejectedSpans: "2", errorMessage: "quota exceeded" } }));
    });
    const io = capturedIo();
    expect(await main(["send", atof, "--otlp", c.url], io)).toBe(1);
    expect(io.stderr.join("\n")).toMatch(/, 2 NOT accepted\n {2}the collector rejected spans: quota exceeded$/);
  });

  it("retries a collector that is briefly unavailable, and fails on one that refuses", async () => {
    const flaky = await collector((i, req, res, body) => (i === 0 ? replyStatus(503)(i, req, res, body) : reply200(i, req, res, body)));
    expect(await main(["send", atof, "--otlp", flaky.url], capturedIo())).toBe(0);
    expect(flaky.bodies.length).toBe(2);
    const refusing = await collector(replyStatus(400));
    const io = capturedIo();
    expect(await main(["send", atof, "--otlp", refusing.url], io)).toBe(1);
    expect(io.stderr.join("\n")).toContain("the collector answered HTTP 400");
  });

  it("exits 1 when no collector is listening", async () => {
    const io = capturedIo();
    const url = `http://user:secret@127.0.0.1:${await deadPort()}/v1/traces?token=abc`;
    expect(await main(["send", atof, "--otlp", url], io)).toBe(1);
    const text = io.stderr.join("\n");
    expect(text).toMatch(/0 accepted, \d+ NOT accepted\n {2}the collector could not be reached \(ECONNREFUSED, 5 attempts\)/);
    expect(text).not.toMatch(/secret|token=abc/);
  }, 30_000);

  it("sends protobuf when asked", async () => {
    const types: string[] = [];
    const c = await collector((_i, req, res) => {
      types.push(String(req.headers["content-type"]));
      res.writeHead(200, { "content-type": "application/x-protobuf" });
      res.end();
    });
    expect(await main(["send", atof, "--otlp", c.url, "--protocol", "http/protobuf"], capturedIo())).toBe(0);
    expect(types).toEqual(["application/x-protobuf"]);
    expect(c.bodies[0]).toContain("weather-agent");
  });

  it("skips a torn last line with a warning; a bad line in the middle stops it unless --lenient", async () => {
    const c = await collector(reply200);
    const torn = join(work, "torn.jsonl");
    await writeFile(torn, await readFile(atof, "utf8"));
    await appendFile(torn, '{"kind":"scope","scope_category":"st');
    const io = capturedIo();
    expect(await main(["send", torn, "--otlp", c.url], io)).toBe(0);
    expect(io.stderr[0]).toMatch(
      /^relaytrace: warning: .*torn\.jsonl:17: the last line \(36 bytes\) ends without a line end and is not complete JSON: skipped$/,
    );
    const bad = join(work, "bad-middle.jsonl");
    const lines = (await readFile(atof, "utf8")).split("\n");
    lines.splice(3, 0, "not json");
    await writeFile(bad, lines.join("\n"));
    const strict = capturedIo();
    expect(await main(["send", bad, "--otlp", c.url], strict)).toBe(2);
    expect(strict.stderr).toEqual([expect.stringMatching(/^relaytrace: .*bad-middle\.jsonl: ATOF line 4: not valid JSON/)]);
    const lenient = capturedIo();
    expect(await main(["send", bad, "--otlp", c.url, "--lenient"], lenient)).toBe(0);
    expect(lenient.stderr[0]).toMatch(/^relaytrace: warning: .*bad-middle\.jsonl:4: skipped: not valid JSON/);
  });

  it("needs --otlp with an http(s) URL", async () => {
    const io = capturedIo();
    expect(await main(["send", atof], io)).toBe(2);
    expect(io.stderr).toEqual(["relaytrace: send needs --otlp URL (e.g. http://localhost:4318/v1/traces)"]);
    expect(await main(["send", atof, "--otlp", "localhost:4318"], io)).toBe(2);
    expect(io.stderr.at(-1)).toBe('relaytrace: --otlp must be an http(s) URL (got "localhost:4318")');
  });
});
