// Failure is visible: RELAYTRACE_LOG / OTEL_LOG_LEVEL print each diagnostic once on stderr (its
// code first, then the totals at exit); the default, warn, prints failed exports. And `relaytrace
// demo --otlp URL` says whether the spans arrived, exiting non-zero when they did not.
import { execFile } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deadPort } from "../support/fault-collector.js";
import { startOtlpReceiver, type OtlpReceiver } from "../support/otlp.js";

const DIST = fileURLToPath(new URL("../../dist/", import.meta.url));
const CLI = join(DIST, "src/cli/main.js");

let dir: string;
let script: string;
let deadUrl: string;

function node(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("OTEL_") && k !== "RELAYTRACE_LOG"));
  return new Promise((resolve) =>
    execFile(process.execPath, args, { env: { ...clean, ...env } }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    ),
  );
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "relaytrace-log-"));
  script = join(dir, "app.mjs");
  // An app whose collector is down: three traces, so the failure happens more than once.
  await writeFile(
    script,
    `import { createRuntime } from ${JSON.stringify(pathToFileURL(join(DIST, "src/index.js")).href)};
import { OtelExporter } from ${JSON.stringify(pathToFileURL(join(DIST, "exporters/index.js")).href)};
const rt = createRuntime();
new OtelExporter({ projection: "full", endpoint: process.argv[2], timeoutMillis: 500, maxExportBatchSize: 1 }).register(rt);
for (let i = 0; i < 3; i++) await rt.withScope("run", () => rt.mark("step", { data: { i } }), { category: "agent" });
await rt.shutdown();
console.log("app finished");
`,
  );
  deadUrl = `http://127.0.0.1:${await deadPort()}/v1/traces`;
});

describe("diagnostics on stderr", () => {
  it("by default (warn) prints a failed export once, with its code, and the total at exit; the app is unaffected", async () => {
    const run = await node([script, deadUrl], {});
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("app finished");
    const lines = run.stderr.split("\n").filter((l) => l.includes("otel.export_failed:"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^relaytrace warn: otel\.export_failed: span export failed/);
    expect(run.stderr).toMatch(/relaytrace warn: otel\.export_failed happened \d+ times in all/);
  });

  it("RELAYTRACE_LOG=error prints nothing for a warning; OTEL_LOG_LEVEL is the fallback", async () => {
    expect((await node([script, deadUrl], { RELAYTRACE_LOG: "error" })).stderr).toBe("");
    expect((await node([script, deadUrl], { OTEL_LOG_LEVEL: "ERROR" })).stderr).toBe("");
    expect((await node([script, deadUrl], { OTEL_LOG_LEVEL: "error", RELAYTRACE_LOG: "warn" })).stderr).toContain("otel.export_failed");
  });

  it("RELAYTRACE_LOG=debug also prints routine diagnostics; a healthy run prints nothing at the default level", async () => {
    const receiver: OtlpReceiver = await startOtlpReceiver();
    try {
      const healthy = await node([script, `${receiver.url}/v1/traces`], {});
      expect(healthy.stderr).toBe("");
      const debug = await node([script, `${receiver.url}/v1/traces`], { RELAYTRACE_LOG: "debug", OTEL_TRACES_SAMPLER: "bogus" });
      expect(debug.stderr).toMatch(/^relaytrace info: otel\.env_invalid: OTEL_TRACES_SAMPLER=bogus is not supported/m);
    } finally {
      await receiver.close();
    }
  });
});

describe("relaytrace demo --otlp", () => {
  let receiver: OtlpReceiver;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
  });
  afterAll(() => receiver.close());

  it("says the spans arrived when the collector accepted them", async () => {
    const run = await node([CLI, "demo", "--out", join(dir, "ok"), "--otlp", `${receiver.url}/v1/traces`], {});
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/OTLP {2}\d+ spans sent to .*; the collector accepted every export/);
    expect(receiver.received.length).toBeGreaterThan(0);
  });

  it("says they did not arrive and exits non-zero when the export failed", async () => {
    const run = await node([CLI, "demo", "--out", join(dir, "down"), "--otlp", deadUrl], {});
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("did NOT all arrive: otel.export_failed");
    expect(run.stderr).toContain(`the OTLP export to ${deadUrl} failed`);
  });
});
