// Runtimes such as Cloudflare Workers refuse random values, timers, AbortControllers and I/O in a
// module's top level, and have no undici (it needs node:sqlite) nor, often, a file system. The
// built entry points must import cleanly under those rules: each is imported in a child Node whose
// randomness, timers, AbortController and fs functions throw while it loads
// (test/runtimes/import-probe.mjs), and their static import graphs are walked with esbuild.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runModuleProbe } from "../support/import-graph.js";
import { startOtlpReceiver, type OtlpReceiver } from "../support/otlp.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const PROBE = fileURLToPath(new URL("./import-probe.mjs", import.meta.url));
const built = existsSync(`${ROOT}dist/src/index.js`);
const ENTRIES = ["dist/src/index.js", "dist/exporters/index.js", "dist/exporters/testing/index.js"];

interface ProbeReport {
  calls: string[];
  results: { entry: string; ok: boolean; error?: string }[];
}

function probe(entry: string): Promise<ProbeReport> {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, [PROBE, entry], { cwd: ROOT, timeout: 60_000 }, (error, stdout, stderr) => {
      const line = stdout.trim().split("\n").pop() ?? "";
      try {
        resolve(JSON.parse(line) as ProbeReport);
      } catch {
        reject(new Error(`probe of ${entry} printed no report: ${String(error)} ${stderr}`));
      }
    }),
  );
}

/** Every import in the static graph of `entry` (dynamic `import()` of a computed name is not followed): [importer, specifier]. */
async function staticImports(entry: string): Promise<[string, string][]> {
  const result = await build({
    entryPoints: [`${ROOT}${entry}`],
    absWorkingDir: ROOT,
    bundle: true,
    write: false,
    metafile: true,
    format: "esm",
    platform: "node",
    external: ["node:*"],
    logLevel: "silent",
  });
  return Object.entries(result.metafile.inputs).flatMap(([file, info]) => info.imports.map((i): [string, string] => [file, i.path]));
}

describe.skipIf(!built)("the built entry points at import", () => {
  it.each(ENTRIES)("%s makes no random value, timer, AbortController or file access while it loads", async (entry) => {
    const report = await probe(entry);
    expect(report.results).toEqual([{ entry, ok: true }]);
    expect(report.calls).toEqual([]);
  });

  it.each(ENTRIES)("%s does not reach undici in its static import graph", async (entry) => {
    const imports = await staticImports(entry);
    expect(imports.filter(([file, specifier]) => /(^|\/)undici(\/|$)/.test(specifier) || file.includes("node_modules/undici/"))).toEqual(
      [],
    );
  });

  // The runtime (createRuntime and everything it builds on) and the OTLP exporter read and write
  // no files: where there is no file system they still load.
  it.each(["dist/src/runtime/runtime.js", "dist/exporters/otel/index.js"])("%s imports no node:fs from the package", async (entry) => {
    const imports = await staticImports(entry);
    expect(imports.filter(([file, specifier]) => file.startsWith("dist/") && /^(node:)?fs(\/promises)?$/.test(specifier))).toEqual([]);
  });
});

// What each entry point loads, seen by Node's module loader in a fresh process (test/runtimes/module-probe.mjs):
// an app pays at start-up only for what it uses. `relaytrace` needs @opentelemetry/api (the context
// bridge) and ajv: defineTool compiles a tool's schema when the tool is defined, which on Workers
// is only allowed while the Worker's module loads, so ajv cannot wait for a later import().
const RELAYTRACE_PACKAGES = ["@opentelemetry/api", "ajv", "fast-deep-equal", "fast-uri", "json-schema-traverse"];
const OTLP_EXPORTERS = /^@opentelemetry\/exporter-/;
const LOGS_OR_METRICS = /^@opentelemetry\/(sdk-logs|api-logs|sdk-metrics|exporter-(logs|metrics)-)/;
const PROTOBUF_MODULES = ["dist/exporters/otel/protobuf-span-exporter.js", "dist/exporters/otel/otlp-trace-protobuf.js"];
const JSON_MODULES = ["dist/exporters/otel/json-span-exporter.js", "dist/exporters/otel/otlp-trace-json.js"];
const canProbe = built && typeof (await import("node:module")).registerHooks === "function";

describe.skipIf(!canProbe)("what each entry point loads", () => {
  let receiver: OtlpReceiver;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
  });
  afterAll(() => receiver.close());
  const received = (signal: string) => receiver.received.filter((r) => r.signal === signal).length;

  it("relaytrace loads @opentelemetry/api and ajv, no OpenTelemetry SDK, OTLP exporter, undici or yaml", async () => {
    const report = await runModuleProbe("relaytrace");
    expect(report.packages).toEqual(RELAYTRACE_PACKAGES);
  });

  it("relaytrace/exporters loads no OTLP exporter, no logs or metrics SDK and neither encoding", async () => {
    const report = await runModuleProbe("exporters");
    expect(report.packages.filter((p) => OTLP_EXPORTERS.test(p) || LOGS_OR_METRICS.test(p))).toEqual([]);
    expect(report.packages).not.toContain("@opentelemetry/otlp-exporter-base");
    expect(report.packages).not.toContain("@opentelemetry/otlp-transformer");
    expect(report.packages).not.toContain("yaml");
    expect(report.packages).not.toContain("undici");
    expect(report.packages).not.toContain("@opentelemetry/sdk-trace");
    expect(report.files.filter((f) => PROTOBUF_MODULES.includes(f) || /mark-logs|signal-metrics/.test(f))).toEqual([]);
  });

  // The lean start of the common case: the samplers are relaytrace's own (no @opentelemetry/sdk-trace),
  // and the transport takes node:http with process.getBuiltinModule, so neither the module loader's
  // node:http namespace nor the undici inside Node that its WebSocket getters load is built.
  it("an OtelExporter sending protobuf traces loads that encoding only: no SDK, no node:http namespace, no undici of Node's", async () => {
    const before = received("traces");
    const report = await runModuleProbe("otel-protobuf", receiver.url);
    expect(report.diagnostics).toEqual([]);
    expect(received("traces")).toBe(before + 1);
    expect(report.files).toEqual(expect.arrayContaining(PROTOBUF_MODULES));
    expect(report.packages.filter((p) => OTLP_EXPORTERS.test(p) || LOGS_OR_METRICS.test(p))).toEqual([]);
    expect(report.packages).not.toContain("@opentelemetry/otlp-exporter-base");
    expect(report.packages).not.toContain("@opentelemetry/otlp-transformer");
    expect(report.packages).not.toContain("@opentelemetry/sdk-trace");
    expect(report.builtins.filter((b) => /^node:(http|https|undici)$/.test(b))).toEqual([]);
    expect(report.nodeInternals).toEqual([]);
  });

  it("an OtelExporter sending JSON traces loads relaytrace's JSON encoder only: no OTLP package of OpenTelemetry's", async () => {
    const before = received("traces");
    const report = await runModuleProbe("otel-json", receiver.url);
    expect(report.diagnostics).toEqual([]);
    expect(received("traces")).toBe(before + 1);
    expect(report.files).toEqual(expect.arrayContaining(JSON_MODULES));
    expect(report.packages.filter((p) => OTLP_EXPORTERS.test(p))).toEqual([]);
    expect(report.packages).not.toContain("@opentelemetry/otlp-exporter-base");
    expect(report.packages).not.toContain("@opentelemetry/otlp-transformer");
    expect(report.files.filter((f) => PROTOBUF_MODULES.includes(f))).toEqual([]);
    expect(report.packages).not.toContain("@opentelemetry/sdk-logs");
  });

  it("logs: true loads the logs SDK and the log exporter of the chosen encoding, no metrics exporter", async () => {
    const before = received("logs");
    const report = await runModuleProbe("otel-logs", receiver.url);
    expect(report.diagnostics).toEqual([]);
    expect(received("logs")).toBe(before + 1);
    expect(report.packages).toContain("@opentelemetry/sdk-logs");
    expect(report.packages.filter((p) => OTLP_EXPORTERS.test(p))).toEqual(["@opentelemetry/exporter-logs-otlp-proto"]);
  });

  it("metrics: true loads the metric exporter of the chosen encoding, no logs SDK", async () => {
    const report = await runModuleProbe("otel-metrics-json", receiver.url);
    expect(report.diagnostics).toEqual([]);
    expect(received("metrics")).toBeGreaterThan(0);
    expect(report.packages.filter((p) => OTLP_EXPORTERS.test(p))).toEqual(["@opentelemetry/exporter-metrics-otlp-http"]);
    expect(report.packages).not.toContain("@opentelemetry/sdk-logs");
  });
});

// A bundler leaves out what an app does not use: the package declares its modules free of side
// effects, so a Worker that defines no tool carries no ajv, and one that reads no skills no yaml.
describe.skipIf(!built)("a Worker's bundle", () => {
  it("of a runtime and an OtelExporter holds no ajv and no yaml", async () => {
    const dir = await mkdtemp(join(tmpdir(), "relaytrace-bundle-"));
    try {
      await mkdir(join(dir, "node_modules"));
      await symlink(ROOT.replace(/\/$/, ""), join(dir, "node_modules", "relaytrace"), "dir");
      const result = await build({
        stdin: {
          contents: [
            'import { createRuntime } from "relaytrace";',
            'import { OtelExporter } from "relaytrace/exporters";',
            "const runtime = createRuntime();",
            'new OtelExporter({ projection: "gen_ai", endpoint: "http://127.0.0.1:4318/v1/traces" }).register(runtime);',
            "export default { fetch: () => runtime.forceFlush().then(() => new Response('ok')) };",
          ].join("\n"),
          resolveDir: dir,
          loader: "js",
        },
        bundle: true,
        write: false,
        metafile: true,
        format: "esm",
        platform: "browser",
        conditions: ["workerd", "worker", "browser"],
        external: ["node:*"],
        logLevel: "silent",
      });
      // What the output holds (the metafile's inputs also list modules read and then left out).
      const held = Object.values(result.metafile.outputs).flatMap((o) => Object.entries(o.inputs).filter(([, i]) => i.bytesInOutput > 0));
      const packages = new Set(held.map(([f]) => /.*node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(f)?.[1]));
      expect(packages.has("@opentelemetry/api")).toBe(true);
      expect(packages.has("ajv")).toBe(false);
      expect(packages.has("yaml")).toBe(false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
