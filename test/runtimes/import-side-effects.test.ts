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
import { startNode } from "../support/child-process.js";
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
// bridge); ajv comes with the first tool that has a JSON Schema (package.json `imports`,
// `#schema-compiler`), and a Worker's bundle imports it with the module (see "a Worker's bundle").
const RELAYTRACE_PACKAGES = ["@opentelemetry/api"];
const AJV_PACKAGES = ["ajv", "fast-deep-equal", "fast-uri", "json-schema-traverse"];
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

  it("relaytrace loads @opentelemetry/api only: no ajv, OpenTelemetry SDK, OTLP exporter, undici or yaml", async () => {
    const report = await runModuleProbe("relaytrace");
    expect(report.packages).toEqual(RELAYTRACE_PACKAGES);
  });

  // The file system and processes are for the features that use them: built-in tools, skills,
  // reading ATOF files (each loads them when first used).
  it("relaytrace loads neither node:fs nor node:child_process", async () => {
    const report = await runModuleProbe("relaytrace");
    expect(report.builtins.filter((b) => /^node:(fs|fs\/promises|child_process)$/.test(b))).toEqual([]);
    expect(report.files.filter((f) => f.startsWith("dist/src/agent/builtins/"))).toEqual([]);
  });

  it("defining a tool with a JSON Schema loads ajv, which then validates its arguments", async () => {
    const report = await runModuleProbe("define-tool");
    expect(report.packagesAtImport).toEqual(RELAYTRACE_PACKAGES);
    expect(report.packages).toEqual([...RELAYTRACE_PACKAGES, ...AJV_PACKAGES].sort());
    expect(report.toolResult).toEqual({ output: "invalid arguments for add: /b must be number", isError: true });
  });

  it("relaytrace/exporters loads no OTLP exporter, no logs or metrics SDK, neither encoding and no ajv", async () => {
    const report = await runModuleProbe("exporters");
    expect(report.packages.filter((p) => OTLP_EXPORTERS.test(p) || LOGS_OR_METRICS.test(p))).toEqual([]);
    expect(report.packages).not.toContain("@opentelemetry/otlp-exporter-base");
    expect(report.packages).not.toContain("@opentelemetry/otlp-transformer");
    expect(report.packages).not.toContain("yaml");
    expect(report.packages).not.toContain("undici");
    expect(report.packages).not.toContain("@opentelemetry/sdk-trace");
    expect(report.packages.filter((p) => AJV_PACKAGES.includes(p))).toEqual([]);
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

/** An app of `lines` bundled against the built package; the packages and package files its output holds. */
async function bundleApp(
  lines: string[],
  options: { platform: "browser" | "node"; conditions?: string[]; outfile?: string },
): Promise<{ packages: Set<string | undefined>; files: string[] }> {
  const dir = await mkdtemp(join(tmpdir(), "relaytrace-bundle-"));
  try {
    await mkdir(join(dir, "node_modules"));
    await symlink(ROOT.replace(/\/$/, ""), join(dir, "node_modules", "relaytrace"), "dir");
    const result = await build({
      stdin: { contents: lines.join("\n"), resolveDir: dir, loader: "js" },
      bundle: true,
      write: options.outfile !== undefined,
      ...(options.outfile === undefined ? {} : { outfile: options.outfile }),
      metafile: true,
      format: "esm",
      platform: options.platform,
      ...(options.conditions === undefined ? {} : { conditions: options.conditions }),
      external: ["node:*"],
      logLevel: "silent",
    });
    // What the output holds (the metafile's inputs also list modules read and then left out).
    const held = Object.values(result.metafile.outputs).flatMap((o) => Object.entries(o.inputs).filter(([, i]) => i.bytesInOutput > 0));
    return {
      packages: new Set(held.map(([f]) => /.*node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(f)?.[1])),
      files: held.map(([f]) => f.replace(/^.*?(dist\/)/, "$1")),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const WORKER = { platform: "browser", conditions: ["workerd", "worker", "browser"] } as const;
const ADD_TOOL = [
  'import { defineTool } from "relaytrace";',
  "const add = defineTool({",
  '  name: "add",',
  '  description: "Adds two numbers",',
  '  inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },',
  "  execute: ({ a, b }) => String(a + b),",
  "});",
];

// A bundler leaves out what an app does not use: the package declares its modules free of side
// effects, so a Worker that defines no tool carries no ajv, and one that reads no skills no yaml.
describe.skipIf(!built)("a Worker's bundle", () => {
  it("of a runtime and an OtelExporter holds no ajv and no yaml", async () => {
    const { packages } = await bundleApp(
      [
        'import { createRuntime } from "relaytrace";',
        'import { OtelExporter } from "relaytrace/exporters";',
        "const runtime = createRuntime();",
        'new OtelExporter({ projection: "gen_ai", endpoint: "http://127.0.0.1:4318/v1/traces" }).register(runtime);',
        "export default { fetch: () => runtime.forceFlush().then(() => new Response('ok')) };",
      ],
      WORKER,
    );
    expect(packages.has("@opentelemetry/api")).toBe(true);
    expect(packages.has("ajv")).toBe(false);
    expect(packages.has("yaml")).toBe(false);
  });

  // Workers lets ajv generate a validator only while the Worker's modules load, where tools are defined.
  it("of a Worker that defines a tool imports ajv with its modules", async () => {
    const { packages, files } = await bundleApp(
      [...ADD_TOOL, "export default { fetch: async () => Response.json(await add.execute({ a: 1, b: 2 })) };"],
      WORKER,
    );
    expect(packages.has("ajv")).toBe(true);
    expect(files).toContain("dist/src/schema-compiler/at-import.js");
    expect(files).not.toContain("dist/src/schema-compiler/on-first-use.js");
  });
});

// A bundle for Node that holds its dependencies may be deployed with no node_modules beside it
// (a serverless function): ajv must be in it, as it is when bundlers pick the `module` condition.
describe.skipIf(!built)("a Node app bundled with its dependencies", () => {
  it("validates a tool's arguments where no node_modules is", async () => {
    const out = await mkdtemp(join(tmpdir(), "relaytrace-node-bundle-"));
    try {
      const outfile = join(out, "app.mjs");
      const { packages } = await bundleApp(
        [...ADD_TOOL, "console.log(JSON.stringify([await add.execute({ a: 1, b: 2 }), await add.execute({ a: 1, b: 'two' })]));"],
        { platform: "node", outfile },
      );
      expect(packages.has("ajv")).toBe(true);
      const child = startNode(outfile, [], { cwd: out });
      const { code } = await child.exited;
      expect(child.stderr()).toBe("");
      expect(code).toBe(0);
      expect(JSON.parse(child.stdout())).toEqual([
        { output: "3", isError: false },
        { output: "invalid arguments for add: /b must be number", isError: true },
      ]);
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });
});
