// What relaytrace promises an app on either OpenTelemetry JS SDK line (test/peers/otel-sdk2-app.test.ts
// and otel-sdk3-app.test.ts run it for theirs): a plain install with no npm warning and one api copy,
// the app's trace joined, the app's provider, sampler and resource taken, relaytrace's own OTLP
// pipeline working on the app's SDK packages, and the app's TypeScript compiling under --strict.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spanIdOf } from "../../src/events/uuid.js";
import { attributesOf, logRecordsOf, spansOf, startOtlpReceiver, type OtlpReceiver } from "./otlp.js";
import { startScriptedCollector } from "./scripted-collector.js";
import {
  apiCopies,
  installRelaytraceIntoApp,
  npmWarnings,
  ownOpenTelemetryPackages,
  removeApp,
  runAppScenario,
  typeCheckInApp,
  type OtelApp,
} from "./otel-app.js";

export interface OtelAppLine {
  /** "SDK 2" or "SDK 3". */
  name: string;
  /** The app's program and its TypeScript, in test/peers/apps. */
  program: string;
  types: string;
}

interface DescribedSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  serviceName?: string;
}

interface LeanStart {
  packages: Record<string, string>;
  builtins: string[];
  nodeInternals: string[];
  diagnostics: unknown[];
}

interface Joined {
  request: { traceId: string; spanId: string };
  toolUuid: string;
  activeInTool?: string;
  spans: DescribedSpan[];
}

/** The app, with relaytrace installed into it once for the whole file. */
export function otelAppSuite(line: OtelAppLine): { app: () => OtelApp } {
  let app: OtelApp | undefined;
  beforeAll(async () => {
    app = await installRelaytraceIntoApp();
  }, 120_000);
  afterAll(() => removeApp(app));
  const current = () => {
    if (!app) throw new Error("the app was not installed");
    return app;
  };

  describe(`relaytrace in an app on OpenTelemetry JS ${line.name}`, () => {
    it("installs with a plain npm install: no warning, one @opentelemetry/api, and the app's OpenTelemetry packages shared", async () => {
      expect(await npmWarnings(current())).toEqual([]);
      expect(await apiCopies(current())).toEqual(["node_modules/@opentelemetry/api"]);
      expect(await ownOpenTelemetryPackages(current())).toEqual([]);
    });

    it("joins a started NodeSDK: the tool span is a child of the app's active span, active inside the tool, on the app's resource", async () => {
      const { request, toolUuid, activeInTool, spans } = await runAppScenario<Joined>(current(), line.program, "join");
      const byName = new Map(spans.map((s) => [s.name, s]));
      expect([...byName.keys()].sort()).toEqual(["after relaytrace shut down", "db.query", "execute_tool lookup", "request"]);
      const tool = byName.get("execute_tool lookup")!;
      expect(tool).toMatchObject({
        spanId: spanIdOf(toolUuid),
        traceId: request.traceId,
        parentSpanId: request.spanId,
        serviceName: "shop",
      });
      expect(activeInTool).toBe(tool.spanId);
      expect(byName.get("db.query")!.parentSpanId).toBe(tool.spanId);
    });

    it("takes the app provider's sampler at trace roots", async () => {
      const names = await runAppScenario<Record<string, string[]>>(current(), line.program, "sampler");
      expect(names).toEqual({ alwaysOff: [], alwaysOn: ["agent", "lookup"] });
    });

    it("sends spans, mark log records and metrics through relaytrace's own OTLP pipeline, and spans through the app's OTLP exporter", async () => {
      const receiver: OtlpReceiver = await startOtlpReceiver();
      try {
        const { toolUuid, diagnostics } = await runAppScenario<{ toolUuid: string; diagnostics: unknown[] }>(
          current(),
          line.program,
          "send",
          {
            RECEIVER_URL: receiver.url,
          },
        );
        expect(diagnostics).toEqual([]);
        const spansAt = (path: string) =>
          receiver.received.filter((r) => r.path === path).flatMap((r) => spansOf(r.body).map((s) => [s["name"], s["spanId"]]));
        expect(spansAt("/v1/traces").sort()).toEqual([
          ["agent", expect.any(String)],
          ["lookup", spanIdOf(toolUuid)],
        ]);
        expect(spansAt("/app/v1/traces").sort()).toEqual([
          ["agent", expect.any(String)],
          ["lookup", spanIdOf(toolUuid)],
        ]);
        const marks = logRecordsOf(receiver.received).map((record) => attributesOf(record["attributes"])["nemo_relay.mark.name"]);
        expect(marks).toEqual(["cache.miss"]);
        const metricNames = receiver.received
          .filter((r) => r.signal === "metrics")
          .flatMap((r) => JSON.stringify(r.body).match(/"name":"jobs\.done"/g) ?? []);
        expect(metricNames.length).toBeGreaterThan(0);
      } finally {
        await receiver.close();
      }
    });

    it("delivers protobuf spans (variables, retries, keep-alive) without loading an OTLP package of OpenTelemetry's, @opentelemetry/sdk-trace or Node's undici", async () => {
      const collector = await startScriptedCollector((n) => (n === 0 ? { status: 503, headers: { "retry-after": "0" } } : { status: 200 }));
      try {
        const report = await runAppScenario<LeanStart>(current(), "otel-lean-start.mjs", "send", {
          RECEIVER_URL: collector.base,
          OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: "gzip",
          OTEL_EXPORTER_OTLP_HEADERS: "x-team=relay",
        });
        expect(report.diagnostics).toEqual([]);
        expect(Object.keys(report.packages).filter((p) => /^@opentelemetry\/(otlp-|exporter-)/.test(p))).toEqual([]);
        expect(Object.keys(report.packages)).not.toContain("@opentelemetry/sdk-trace");
        expect(report.builtins.filter((b) => /^node:(http|https|undici)$/.test(b))).toEqual([]);
        expect(report.nodeInternals).toEqual([]);
        // The first request is refused with a 503 and sent again; then a second trace on the same connection.
        expect(collector.requests.map((r) => [r.spans.map((s) => s["name"]), r.connection])).toEqual([
          [["execute_tool lookup"], 0],
          [["execute_tool lookup"], 0],
          [["execute_tool lookup"], 0],
        ]);
        expect(collector.requests.map((r) => [r.headers["content-encoding"], r.headers["x-team"]])).toEqual([
          ["gzip", "relay"],
          ["gzip", "relay"],
          ["gzip", "relay"],
        ]);
      } finally {
        await collector.close();
      }
    });

    it("type-checks the app's TypeScript under tsc --strict against relaytrace's published declarations", async () => {
      expect(await typeCheckInApp(current(), line.types)).toBe("");
    }, 120_000);
  });

  return { app: current };
}
