// How the OtelExporter delivers protobuf spans over OTLP/HTTP in Node, against real collectors on
// 127.0.0.1: the standard variables (endpoint, headers, timeout, compression, certificates), the
// retries OpenTelemetry's exporters make (which statuses, Retry-After, backoff, never past the
// timeout), partial-success replies, kept-alive connections, and the diagnostics a failed delivery
// leaves. Options in code win over variables.
import { diag, DiagLogLevel } from "@opentelemetry/api";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { OtelExporter, type OtelExporterOptions } from "../../exporters/otel/index.js";
import { createRuntime } from "../../src/runtime/runtime.js";
import {
  partialSuccessReply,
  startScriptedCollector,
  type CollectorReply,
  type CollectorRequest,
  type CollectorTls,
  type ScriptedCollector,
} from "../support/scripted-collector.js";
import { canMakeCertificates, makeCertificates, type TestCertificates } from "../support/test-certificates.js";

const collectors: ScriptedCollector[] = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  diag.disable();
  await Promise.all(collectors.splice(0).map((c) => c.close()));
});

async function collector(reply?: (n: number, request: CollectorRequest) => CollectorReply, tls?: CollectorTls): Promise<ScriptedCollector> {
  const c = await startScriptedCollector(reply, tls);
  collectors.push(c);
  return c;
}

type Diagnostics = ReturnType<OtelExporter["diagnostics"]>;

/** One agent trace (agent → tool, two spans) through a new OtelExporter, flushed; its diagnostics. */
async function sendTrace(options: Partial<OtelExporterOptions> = {}, traces = 1): Promise<Diagnostics> {
  const runtime = createRuntime();
  const exporter = new OtelExporter({ projection: "gen_ai", ...options });
  exporter.register(runtime);
  for (let i = 0; i < traces; i++) {
    await runtime.withScope("agent", () => runtime.executeTool("lookup", { city: "Paris" }, () => ({ result: "sunny" })), {
      category: "agent",
    });
    await runtime.forceFlush();
  }
  await runtime.shutdown();
  return exporter.diagnostics();
}

const spanNames = (c: ScriptedCollector) => c.requests.flatMap((r) => r.spans.map((s) => s["name"])).sort();
const codes = (diagnostics: Diagnostics) => Object.fromEntries(diagnostics.map((d) => [d.code, d.count]));
const TRACE = ["execute_tool lookup", "invoke_agent agent"];

describe("where and how spans are sent", () => {
  it("OTEL_EXPORTER_OTLP_ENDPOINT gets /v1/traces appended, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is used as it is and wins, the endpoint in code wins over both", async () => {
    const c = await collector();
    vi.stubEnv("OTEL_EXPORTER_OTLP_ENDPOINT", `${c.base}/base`);
    expect(await sendTrace()).toEqual([]);
    vi.stubEnv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", `${c.base}/custom/traces`);
    expect(await sendTrace()).toEqual([]);
    expect(await sendTrace({ endpoint: `${c.base}/code/v1/traces` })).toEqual([]);
    expect(c.requests.map((r) => r.path)).toEqual(["/base/v1/traces", "/custom/traces", "/code/v1/traces"]);
    expect(c.requests.every((r) => r.spans.length === 2)).toBe(true);
  });

  it("OTEL_EXPORTER_OTLP_HEADERS and _TRACES_HEADERS are merged, the signal's winning, headers in code win; the content type stays protobuf", async () => {
    const c = await collector();
    vi.stubEnv("OTEL_EXPORTER_OTLP_HEADERS", "x-team=relay,x-tier=general");
    vi.stubEnv("OTEL_EXPORTER_OTLP_TRACES_HEADERS", "x-tier=traces,Content-Type=text/plain");
    await sendTrace({ endpoint: c.url });
    await sendTrace({ endpoint: c.url, headers: { "x-tier": "code" } });
    const [fromEnv, fromCode] = c.requests.map((r) => r.headers);
    expect(fromEnv).toMatchObject({ "x-team": "relay", "x-tier": "traces", "content-type": "application/x-protobuf" });
    expect(fromCode).toMatchObject({ "x-tier": "code", "content-type": "application/x-protobuf" });
    expect(fromEnv!["user-agent"]).toMatch(/^relaytrace\/\S+$/);
    expect(fromEnv!["content-length"]).toBe(String(c.requests[0]!.rawBody.length));
  });

  it("OTEL_EXPORTER_OTLP_COMPRESSION=gzip compresses the body; OTEL_EXPORTER_OTLP_TRACES_COMPRESSION=none wins", async () => {
    const c = await collector();
    vi.stubEnv("OTEL_EXPORTER_OTLP_COMPRESSION", "gzip");
    await sendTrace({ endpoint: c.url });
    vi.stubEnv("OTEL_EXPORTER_OTLP_TRACES_COMPRESSION", "none");
    await sendTrace({ endpoint: c.url });
    const [gzipped, plain] = c.requests;
    expect(gzipped!.headers["content-encoding"]).toBe("gzip");
    expect([...gzipped!.rawBody.subarray(0, 2)]).toEqual([0x1f, 0x8b]);
    expect(gzipped!.spans.map((s) => s["name"]).sort()).toEqual(TRACE);
    expect(plain!.headers["content-encoding"]).toBeUndefined();
    expect(plain!.spans.map((s) => s["name"]).sort()).toEqual(TRACE);
  });

  it("keeps the connection alive: one connection carries consecutive exports", async () => {
    const c = await collector();
    expect(await sendTrace({ endpoint: c.url }, 3)).toEqual([]);
    expect(c.requests).toHaveLength(3);
    expect(c.requests.map((r) => r.connection)).toEqual([0, 0, 0]);
  });
});

describe("retries", () => {
  it("retries 429, 502, 503 and 504 (Retry-After: 0 at once) until the collector takes the spans: nothing is counted", async () => {
    const statuses = [429, 502, 503, 504];
    const c = await collector((n) => (n < statuses.length ? { status: statuses[n]!, headers: { "retry-after": "0" } } : { status: 200 }));
    expect(await sendTrace({ endpoint: c.url, timeoutMillis: 10_000 })).toEqual([]);
    expect(c.requests).toHaveLength(5);
    expect(c.requests.every((r) => r.spans.length === 2)).toBe(true);
  });

  it("reads Retry-After as an HTTP date too: one already past retries, one past the timeout does not", async () => {
    const past = new Date(0).toUTCString();
    const later = new Date(Date.now() + 3_600_000).toUTCString();
    const c = await collector((n) => (n === 0 ? { status: 503, headers: { "retry-after": past } } : { status: 200 }));
    expect(await sendTrace({ endpoint: c.url, timeoutMillis: 10_000 })).toEqual([]);
    expect(c.requests).toHaveLength(2);
    const refusing = await collector(() => ({ status: 503, headers: { "retry-after": later } }));
    expect(codes(await sendTrace({ endpoint: refusing.url, timeoutMillis: 10_000 }))).toEqual({
      "otel.export_failed": 1,
      "otel.spans_not_exported": 2,
    });
    expect(refusing.requests).toHaveLength(1);
  });

  it("without Retry-After, waits OpenTelemetry's first backoff (1 s ± 20 %) before retrying", async () => {
    const arrived: number[] = [];
    const c = await collector((n) => {
      arrived.push(performance.now());
      return n === 0 ? { status: 503 } : { status: 200 };
    });
    expect(await sendTrace({ endpoint: c.url, timeoutMillis: 10_000 })).toEqual([]);
    expect(c.requests).toHaveLength(2);
    expect(arrived[1]! - arrived[0]!).toBeGreaterThanOrEqual(790);
  });

  it("does not start a retry that would end past the timeout: the export fails at once and is counted", async () => {
    const c = await collector(() => ({ status: 503, headers: { "retry-after": "30" } }));
    const diagnostics = await sendTrace({ endpoint: c.url, timeoutMillis: 5000 });
    expect(c.requests).toHaveLength(1);
    expect(codes(diagnostics)).toEqual({ "otel.export_failed": 1, "otel.spans_not_exported": 2 });
  });

  it("does not retry another status: one request, counted with the collector's status, and no header value in any diagnostic", async () => {
    const c = await collector(() => ({ status: 401, body: "no entry" }));
    vi.stubEnv("OTEL_EXPORTER_OTLP_TRACES_HEADERS", "authorization=Bearer%20sk-canary-0042");
    const diagnostics = await sendTrace({ endpoint: c.url, timeoutMillis: 5000 });
    expect(c.requests).toHaveLength(1);
    expect(c.requests[0]!.headers["authorization"]).toBe("Bearer sk-canary-0042");
    expect(codes(diagnostics)).toEqual({ "otel.export_failed": 1, "otel.spans_not_exported": 2 });
    expect(diagnostics[0]!.message).toContain("Unauthorized");
    expect(JSON.stringify(diagnostics)).not.toContain("sk-canary-0042");
  });

  it("counts a collector that refuses connections once no retry fits in the timeout", async () => {
    const c = await collector();
    const url = c.url;
    await Promise.all(collectors.splice(0).map((x) => x.close()));
    const diagnostics = await sendTrace({ endpoint: url, timeoutMillis: 500 });
    expect(codes(diagnostics)).toEqual({ "otel.export_failed": 1, "otel.spans_not_exported": 2 });
    expect(diagnostics[0]!.message).toContain("ECONNREFUSED");
  });
});

describe("replies", () => {
  it("a partial success is a delivery (nothing counted); OpenTelemetry's diag logger is told what the collector rejected", async () => {
    const warnings: string[] = [];
    const log = (...args: unknown[]) => warnings.push(args.map(String).join(" "));
    diag.setLogger({ error: log, warn: log, info: () => {}, debug: () => {}, verbose: () => {} }, DiagLogLevel.WARN);
    const c = await collector(() => ({ status: 200, body: partialSuccessReply(1, "span too large") }));
    expect(await sendTrace({ endpoint: c.url })).toEqual([]);
    expect(warnings).toEqual([expect.stringMatching(/Partial Success.*"rejectedSpans":1.*"errorMessage":"span too large"/)]);
  });

  it("gives up on a collector that never answers at the timeout: the connection is closed and the export counted", async () => {
    const c = await collector(() => ({ status: 200, hang: true }));
    const diagnostics = await sendTrace({ endpoint: c.url, timeoutMillis: 300 });
    await c.requests[0]!.connectionClosed; // the transport closed it (the collector never does)
    expect(diagnostics.map((d) => d.code)).toContain("otel.export_failed");
  });

  it("does not read a reply past 4 MiB: the export fails and is counted", async () => {
    const c = await collector(() => ({ status: 200, body: Buffer.alloc(5 * 1024 * 1024) }));
    const diagnostics = await sendTrace({ endpoint: c.url, timeoutMillis: 5000 });
    expect(codes(diagnostics)).toEqual({ "otel.export_failed": 1, "otel.spans_not_exported": 2 });
    expect(diagnostics[0]!.message).toContain("exceeded size limit");
  });
});

describe("the JSON encoding (protocol http/json) takes the same delivery", () => {
  const json = { protocol: "http/json" as const };

  it("reads the same variables (endpoint, merged headers, gzip); the content type stays JSON", async () => {
    const c = await collector();
    vi.stubEnv("OTEL_EXPORTER_OTLP_ENDPOINT", `${c.base}/base`);
    vi.stubEnv("OTEL_EXPORTER_OTLP_HEADERS", "x-team=relay,x-tier=general");
    vi.stubEnv("OTEL_EXPORTER_OTLP_TRACES_HEADERS", "x-tier=traces,Content-Type=text/plain");
    vi.stubEnv("OTEL_EXPORTER_OTLP_COMPRESSION", "gzip");
    expect(await sendTrace(json)).toEqual([]);
    const [request] = c.requests;
    expect(request!.path).toBe("/base/v1/traces");
    expect(request!.headers).toMatchObject({
      "x-team": "relay",
      "x-tier": "traces",
      "content-type": "application/json",
      "content-encoding": "gzip",
    });
    expect(request!.headers["user-agent"]).toMatch(/^relaytrace\/\S+$/);
    expect(spanNames(c)).toEqual(TRACE);
  });

  it("retries as protobuf does (Retry-After honoured) over one kept-alive connection", async () => {
    const c = await collector((n) => (n < 2 ? { status: 503, headers: { "retry-after": "0" } } : { status: 200 }));
    expect(await sendTrace({ ...json, endpoint: c.url, timeoutMillis: 5000 })).toEqual([]);
    expect(c.requests).toHaveLength(3);
    expect(c.requests.map((r) => r.connection)).toEqual([0, 0, 0]);
  });

  it("tells OpenTelemetry's diag logger of a JSON partial success; a refusal is counted with no header value in it", async () => {
    const warnings: string[] = [];
    const log = (...args: unknown[]) => warnings.push(args.map(String).join(" "));
    diag.setLogger({ error: log, warn: log, info: () => {}, debug: () => {}, verbose: () => {} }, DiagLogLevel.WARN);
    const body = JSON.stringify({ partialSuccess: { rejectedSpans: "1", errorMessage: "span too large" } });
    const partial = await collector(() => ({ status: 200, headers: { "content-type": "application/json" }, body }));
    expect(await sendTrace({ ...json, endpoint: partial.url })).toEqual([]);
    expect(warnings).toEqual([expect.stringMatching(/Partial Success.*"rejectedSpans":"1".*"errorMessage":"span too large"/)]);
    const refusing = await collector(() => ({ status: 401, body: "Unauthorized" }));
    const diagnostics = await sendTrace({ ...json, endpoint: refusing.url, headers: { authorization: "Bearer sk-canary-0042" } });
    expect(codes(diagnostics)).toEqual({ "otel.export_failed": 1, "otel.spans_not_exported": 2 });
    expect(JSON.stringify(diagnostics)).not.toContain("sk-canary-0042");
  });
});

describe.skipIf(!canMakeCertificates())("https", () => {
  let dir: string;
  let certs: TestCertificates;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "relaytrace-tls-"));
    certs = makeCertificates(dir);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("trusts the collector's CA from OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE and authenticates with the client certificate and key variables", async () => {
    const c = await collector(undefined, {
      key: certs.read(certs.serverKey),
      cert: certs.read(certs.serverCert),
      clientCa: certs.read(certs.caCert),
    });
    vi.stubEnv("OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE", certs.caCert);
    vi.stubEnv("OTEL_EXPORTER_OTLP_TRACES_CLIENT_CERTIFICATE", certs.clientCert);
    vi.stubEnv("OTEL_EXPORTER_OTLP_TRACES_CLIENT_KEY", certs.clientKey);
    expect(await sendTrace({ endpoint: c.url }, 2)).toEqual([]);
    expect(spanNames(c)).toEqual([...TRACE, ...TRACE].sort());
    expect(c.requests.map((r) => [r.clientCertificate, r.connection])).toEqual([
      [certs.clientName, 0],
      [certs.clientName, 0],
    ]);
  });

  it("refuses a collector whose certificate it cannot verify, and counts the export", async () => {
    const c = await collector(undefined, { key: certs.read(certs.serverKey), cert: certs.read(certs.serverCert) });
    const diagnostics = await sendTrace({ endpoint: c.url, timeoutMillis: 2000 });
    expect(c.requests).toEqual([]);
    expect(codes(diagnostics)).toEqual({ "otel.export_failed": 1, "otel.spans_not_exported": 2 });
  });
});
