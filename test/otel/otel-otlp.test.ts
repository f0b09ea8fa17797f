import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { OtelExporter } from "../../exporters/otel/index.js";
import { SPAN_A, SPAN_T, TRACE_ID, workedExample } from "../support/otel-events.js";
import { decodeOtlp } from "../support/otlp.js";

interface Received {
  path: string;
  contentType: string;
  headers: IncomingMessage["headers"];
  body: {
    resourceSpans: Array<{
      resource: { attributes: Array<{ key: string; value: { stringValue?: string } }> };
      scopeSpans: Array<{
        scope: { name: string };
        spans: Array<{
          traceId: string;
          spanId: string;
          parentSpanId?: string;
          name: string;
          startTimeUnixNano: string;
          endTimeUnixNano: string;
          attributes: Array<{ key: string; value: Record<string, unknown> }>;
          status: { code?: number };
        }>;
      }>;
    }>;
  };
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (s) =>
        new Promise<void>((r) => {
          s.closeAllConnections();
          s.close(() => r());
        }),
    ),
  );
});

async function listen(handler: (req: IncomingMessage, body: Buffer) => number | "hang"): Promise<{ url: string }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const status = handler(req, Buffer.concat(chunks));
      if (status === "hang") return;
      res.writeHead(status, { "content-type": "application/json" });
      res.end("{}");
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces` };
}

describe("OTLP/HTTP export", () => {
  it.each([
    ["OTLP protobuf (the default)", undefined, "application/x-protobuf"],
    ["OTLP JSON", "http/json", "application/json"],
  ] as const)("sends the projected spans as %s with the derived ids, parents, times and attributes", async (_label, protocol, mime) => {
    const received: Received[] = [];
    const { url } = await listen((req, body) => {
      const contentType = String(req.headers["content-type"]);
      received.push({
        path: req.url ?? "",
        contentType,
        headers: req.headers,
        body: decodeOtlp("traces", contentType, body) as unknown as Received["body"],
      });
      return 200;
    });
    const exporter = new OtelExporter({
      projection: "full",
      endpoint: url,
      headers: { "x-team": "relay" },
      serviceName: "weather-svc",
      ...(protocol ? { protocol } : {}),
    });
    for (const e of workedExample()) exporter.onEvent(e);
    await exporter.forceFlush();
    await exporter.shutdown();

    expect(received).toHaveLength(1);
    const req = received[0]!;
    expect(req.path).toBe("/v1/traces");
    expect(req.contentType).toContain(mime);
    expect(req.headers["x-team"]).toBe("relay");
    const rs = req.body.resourceSpans[0]!;
    expect(rs.resource.attributes).toContainEqual({ key: "service.name", value: { stringValue: "weather-svc" } });
    expect(rs.scopeSpans[0]!.scope.name).toBe("relaytrace");
    const spans = rs.scopeSpans.flatMap((s) => s.spans);
    expect(spans).toHaveLength(4);
    const byName = new Map(spans.map((s) => [s.name, s]));
    const agent = byName.get("weather-agent")!;
    const tool = byName.get("get_weather")!;
    expect(spans.every((s) => s.traceId === TRACE_ID)).toBe(true);
    expect(agent.spanId).toBe(SPAN_A);
    expect(agent.parentSpanId ?? "").toBe("");
    expect(tool.spanId).toBe(SPAN_T);
    expect(tool.parentSpanId).toBe(SPAN_A);
    expect(byName.get("mark:cache.lookup")!.parentSpanId).toBe(SPAN_T);
    expect(tool.startTimeUnixNano).toBe("1772366400412000000");
    expect(tool.endTimeUnixNano).toBe("1772366400977311000");
    expect(tool.status.code).toBe(1);
    const temp = tool.attributes.find((a) => a.key === "nemo_relay.end.data.temp_c");
    expect(Number(temp?.value["intValue"])).toBe(4);
    expect(tool.attributes).toContainEqual({
      key: "nemo_relay.tool.result.annotation",
      value: { stringValue: '{"cache":"hit","rank":1}' },
    });
    expect(exporter.diagnostics()).toEqual([]);
  });

  it("counts a 500 from the collector without throwing", async () => {
    let hits = 0;
    const { url } = await listen(() => {
      hits += 1;
      return 500;
    });
    const exporter = new OtelExporter({ projection: "gen_ai", endpoint: url, timeoutMillis: 1000 });
    for (const e of workedExample()) exporter.onEvent(e);
    await expect(exporter.forceFlush()).resolves.toBeUndefined();
    await expect(exporter.shutdown()).resolves.toBeUndefined();
    expect(hits).toBeGreaterThan(0);
    expect(exporter.diagnostics().find((d) => d.code === "otel.export_failed")?.count).toBeGreaterThan(0);
  });

  it("counts a collector that is down, and shutdown returns", async () => {
    const { url } = await listen(() => 200);
    await Promise.all(servers.splice(0).map((s) => new Promise<void>((r) => s.close(() => r()))));
    const exporter = new OtelExporter({ projection: "full", endpoint: url, timeoutMillis: 500 });
    for (const e of workedExample()) exporter.onEvent(e);
    await exporter.shutdown();
    expect(exporter.diagnostics().map((d) => d.code)).toContain("otel.export_failed");
  });

  it("bounds shutdown when the collector hangs", async () => {
    const { url } = await listen(() => "hang");
    const exporter = new OtelExporter({ projection: "full", endpoint: url, timeoutMillis: 300 });
    for (const e of workedExample()) exporter.onEvent(e);
    await exporter.shutdown(); // would never return without the bound; vitest's timeout catches that
    expect(exporter.diagnostics().length).toBeGreaterThan(0);
  });

  it("rejects an invalid endpoint at construction, naming the option", () => {
    expect(() => new OtelExporter({ projection: "full", endpoint: "not a url" })).toThrow(TypeError);
    expect(() => new OtelExporter({ projection: "full", endpoint: "not a url" })).toThrow(/endpoint/);
  });
});
