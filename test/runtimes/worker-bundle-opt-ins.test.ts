// What is optional stays out of a Worker's bundle unless the app asks for it with one import:
// package.json "imports" maps "#price-table" and "#otel-signals" to modules without the import
// of the price table or the logs and metrics SDKs under the "workerd", "worker" and "browser"
// conditions, and to modules with it everywhere else. Each bundle is also run (in a child Node,
// against a real OTLP receiver on 127.0.0.1): without the opt-ins, one diagnostic names the import
// to add and spans keep flowing; with them, the call is priced and the log records arrive.
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleApp, type BundleTarget } from "../support/app-bundle.js";
import { startNode } from "../support/child-process.js";
import { logRecordsOf, spansOf, startOtlpReceiver, type OtlpReceiver } from "../support/otlp.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const built = existsSync(`${ROOT}dist/src/prices/index.js`);
const OPT_INS = ['import "relaytrace/prices";', 'import "relaytrace/exporters/signals";'];
const PRICE_TABLE = "@pydantic/genai-prices";
const SIGNAL_PACKAGES = [
  "@opentelemetry/sdk-logs",
  "@opentelemetry/api-logs",
  "@opentelemetry/sdk-metrics",
  "@opentelemetry/exporter-logs-otlp-http",
  "@opentelemetry/exporter-logs-otlp-proto",
  "@opentelemetry/exporter-metrics-otlp-http",
  "@opentelemetry/exporter-metrics-otlp-proto",
];

/**
 * An app: a runtime, an OtelExporter with logs and metrics on (OTLP/JSON to the URL in argv[2]), a
 * mark and one model call whose reply has a model and usage. Prints one JSON line: the call's
 * cost and both diagnostics lists.
 */
function app(optIns: string[]): string {
  return `${optIns.join("\n")}
import { createRuntime } from "relaytrace";
import { OtelExporter } from "relaytrace/exporters";
const url = process.argv[2];
const runtime = createRuntime();
const events = [];
runtime.subscribe("capture", (e) => void events.push(e));
const exporter = new OtelExporter({ projection: "gen_ai", endpoint: url + "/v1/traces", protocol: "http/json", logs: true, metrics: true });
exporter.register(runtime);
const reply = {
  model: "gpt-4o-mini-2024-07-18",
  choices: [{ index: 0, message: { role: "assistant", content: "hi" }, finish_reason: "stop" }],
  usage: { prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100 },
};
await runtime.withScope("agent", async () => {
  runtime.mark("checkpoint");
  await runtime.executeLlm("openai.chat.completions", { content: { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] } }, async () => reply);
}, { category: "agent" });
await runtime.forceFlush();
const cost = events.filter((e) => e.kind === "scope" && e.category === "llm" && e.scope_category === "end").map((e) => e.category_profile?.cost?.total ?? null);
console.log(JSON.stringify({ cost, runtime: runtime.diagnostics(), exporter: exporter.diagnostics() }));
await runtime.shutdown();
`;
}

interface Diagnostic {
  code: string;
  message: string;
  count: number;
}

/** Bundles `app(optIns)` for `target` and runs it in a child Node; its report. */
async function runBundled(optIns: string[], target: BundleTarget, receiver: OtlpReceiver) {
  const bundle = await bundleApp(app(optIns), target);
  // Away from any node_modules: the bundle must hold everything it uses.
  const dir = await mkdtemp(join(tmpdir(), "relaytrace-bundled-app-"));
  try {
    await writeFile(join(dir, "app.mjs"), bundle.code);
    const child = startNode(join(dir, "app.mjs"), [receiver.url]);
    const { code } = await child.exited;
    // (stderr holds the diagnostic printer's warnings: the diagnostics are asserted from the report)
    expect(code, child.stderr()).toBe(0);
    return JSON.parse(child.stdout().trim().split("\n").pop()!) as {
      cost: (number | null)[];
      runtime: Diagnostic[];
      exporter: Diagnostic[];
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe.skipIf(!built)("a Worker bundle holds the price table and the logs and metrics SDKs only when the app imports them", () => {
  it("without the opt-ins: neither the table nor any logs or metrics package, nor OpenInference's conventions package", async () => {
    const { packages, files } = await bundleApp(app([]), "worker");
    expect(packages.has("@opentelemetry/api")).toBe(true);
    expect([...packages].filter((p) => p === PRICE_TABLE || SIGNAL_PACKAGES.includes(p))).toEqual([]);
    expect(packages.has("@arizeai/openinference-semantic-conventions")).toBe(false);
    // The Worker side of each "imports" entry, not the Node side.
    expect(files).toEqual(
      expect.arrayContaining(["dist/src/wire/price-table-import-bundle.js", "dist/exporters/otel/signal-sdk-import-bundle.js"]),
    );
    expect(files.filter((f) => /price-table-import\.js|signal-sdk-import\.js/.test(f))).toEqual([]);
  });

  it('with import "relaytrace/prices" and "relaytrace/exporters/signals": the table and the logs and metrics SDKs are in', async () => {
    const { packages } = await bundleApp(app(OPT_INS), "worker");
    expect(packages.has(PRICE_TABLE)).toBe(true);
    for (const name of ["@opentelemetry/sdk-logs", "@opentelemetry/sdk-metrics", "@opentelemetry/exporter-logs-otlp-http"]) {
      expect(packages.has(name), name).toBe(true);
    }
  });

  it("a bundle for Node holds both without any opt-in, reached through the Node side of each entry", async () => {
    const { packages, files } = await bundleApp(app([]), "node");
    expect(packages.has(PRICE_TABLE)).toBe(true);
    expect(packages.has("@opentelemetry/sdk-logs")).toBe(true);
    expect(packages.has("@opentelemetry/sdk-metrics")).toBe(true);
    expect(files).toEqual(expect.arrayContaining(["dist/src/wire/price-table-import.js", "dist/exporters/otel/signal-sdk-import.js"]));
  });
});

describe.skipIf(!built)("a Worker bundle run", () => {
  let receiver: OtlpReceiver;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
  });
  afterAll(() => receiver.close());

  it("without the opt-ins: the call is unpriced with one diagnostic naming relaytrace/prices; logs and metrics fail to load naming relaytrace/exporters/signals; spans arrive", async () => {
    const before = receiver.received.length;
    const report = await runBundled([], "worker", receiver);
    expect(report.cost).toEqual([null]);
    expect(report.runtime.filter((d) => d.code.startsWith("llm."))).toEqual([
      {
        code: "llm.price_table_unavailable",
        message: expect.stringContaining('add import "relaytrace/prices"'),
        count: 1,
      },
    ]);
    // One code, counted per signal; its message is the first signal's to fail.
    expect(report.exporter.filter((d) => d.code === "otel.load_failed")).toEqual([
      {
        code: "otel.load_failed",
        message: expect.stringMatching(/^could not load the (logs|metrics) signal .*add import "relaytrace\/exporters\/signals"/),
        count: 2,
      },
    ]);
    const arrived = receiver.received.slice(before);
    expect(arrived.map((r) => r.signal)).toEqual(["traces"]);
    expect(
      spansOf(arrived[0]!.body)
        .map((s) => s["name"])
        .sort(),
    ).toEqual(["chat gpt-4o-mini", "invoke_agent agent"]);
  });

  it("with the opt-ins: the call is priced from the table and the mark arrives as a log record", async () => {
    const before = receiver.received.length;
    const report = await runBundled(OPT_INS, "worker", receiver);
    // gpt-4o-mini: 1,000 × $0.15 + 100 × $0.60 per million tokens.
    expect(report.cost).toEqual([0.00021]);
    expect(report.runtime.filter((d) => d.code.startsWith("llm."))).toEqual([]);
    expect(report.exporter.filter((d) => d.code === "otel.load_failed")).toEqual([]);
    const arrived = receiver.received.slice(before);
    expect(arrived.some((r) => r.signal === "traces")).toBe(true);
    expect(logRecordsOf(arrived).map((r) => r["eventName"])).toContain("checkpoint");
  });
});
