import { existsSync } from "node:fs";
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AtifExporter } from "../../exporters/atif/index.js";
import { AtofExporter } from "../../exporters/atof/index.js";
import { createRuntime } from "../../src/runtime/runtime.js";
import { agentRun, essence } from "../support/fault-collector.js";

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) {
    await chmod(d, 0o700).catch(() => undefined);
    await rm(d, { recursive: true, force: true });
  }
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "relaytrace-disk-"));
  dirs.push(dir);
  return dir;
}

async function baseline() {
  return essence((await agentRun(createRuntime())).result);
}

describe("output that cannot be written: a diagnostic, the run goes on", () => {
  it("an output directory under a regular file (ENOTDIR): ATOF and ATIF both count, the run result is unchanged", async () => {
    const dir = await tempDir();
    const blocker = join(dir, "not-a-dir");
    await writeFile(blocker, "x");
    const runtime = createRuntime();
    new AtofExporter({ type: "file", outputDirectory: join(blocker, "atof") }).register(runtime);
    new AtifExporter({ agent: { name: "a", version: "1" }, outputDirectory: join(blocker, "atif") }).register(runtime);
    const { result } = await agentRun(runtime);
    await runtime.shutdown();
    expect(essence(result)).toEqual(await baseline());
    const codes = new Map(runtime.diagnostics().map((d) => [d.code, d]));
    expect(codes.get("atof.write_failed")?.message).toMatch(/ENOTDIR|EEXIST|not a directory/i);
    expect(codes.get("atof.events_dropped")?.count).toBeGreaterThan(0);
    expect(codes.get("atif.write_failed")?.count).toBe(1);
  });

  it.skipIf(process.getuid?.() === 0)("a read-only directory (EACCES)", async () => {
    const dir = await tempDir();
    await chmod(dir, 0o500);
    const runtime = createRuntime();
    new AtofExporter({ type: "file", path: join(dir, "events.jsonl") }).register(runtime);
    const { result } = await agentRun(runtime);
    await runtime.shutdown();
    expect(result.status).toBe("done");
    expect(runtime.diagnostics().find((d) => d.code === "atof.write_failed")?.message).toMatch(/EACCES/);
  });

  it.skipIf(!existsSync("/dev/full"))("a full disk (ENOSPC via /dev/full): counted, and a later writable file still works", async () => {
    const runtime = createRuntime();
    new AtofExporter({ type: "file", path: "/dev/full" }).register(runtime);
    const dir = await tempDir();
    const good = new AtofExporter({ type: "file", path: join(dir, "ok.jsonl") });
    good.register(runtime);
    const { result } = await agentRun(runtime);
    await runtime.shutdown();
    expect(result.status).toBe("done");
    const codes = new Map(runtime.diagnostics().map((d) => [d.code, d]));
    expect(codes.get("atof.write_failed")?.count).toBeGreaterThan(0);
    expect(codes.get("atof.events_dropped")?.message).toMatch(/could not write \/dev\/full/);
    // the healthy exporter on the same runtime is unaffected by its neighbour's failure
    const lines = (await readFile(join(dir, "ok.jsonl"), "utf8")).trim().split("\n");
    expect(lines.length).toBeGreaterThan(5);
  });
});
