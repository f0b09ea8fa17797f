// The ATOF file exporter where the host name cannot be read, as on Deno without
// `--allow-sys=hostname` (its node:os hostname() throws there; here node:os is made to do the
// same): the exporter still claims and writes its file, and a claim that names no machine is
// judged by its heartbeat, never by a pid that may belong to another machine.
import { readFileSync, readlinkSync } from "node:fs";
import { mkdtemp, readFile, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { AtofExporter } from "../../exporters/atof/index.js";
import { markEvent } from "../support/atof-files.js";

vi.mock("node:os", async (original) => ({
  ...(await original<typeof import("node:os")>()),
  hostname: () => {
    throw new Error('Requires sys access to "hostname", run again with the --allow-sys flag');
  },
}));

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "relaytrace-atof-no-hostname-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function readOr(read: () => string): string {
  try {
    return read().trim();
  } catch {
    return "";
  }
}

describe("an ATOF file exporter that may not read the host name", () => {
  it("claims and writes its file, the claim naming no machine", async () => {
    const path = join(dir, "unnamed.jsonl");
    const exporter = new AtofExporter({ type: "file", path });
    const claim = JSON.parse(await readFile(`${path}.lock`, "utf8")) as { pid: number; host: string };
    expect(claim).toMatchObject({ pid: process.pid, host: "" });
    exporter.onEvent(markEvent("written"));
    await exporter.shutdown();
    expect((await readFile(path, "utf8")).split("\n").filter(Boolean).length).toBe(1);
  });

  it("honours a claim that names no machine while its heartbeat is fresh, whatever its pid, and takes it over once expired", async () => {
    const path = join(dir, "shared.jsonl");
    // This machine's boot and pid namespace, and a pid no process here has: only the missing host
    // name can keep the claim from being taken for a gone process of this machine.
    const claim = {
      pid: 2_000_000_000,
      host: "",
      boot: readOr(() => readFileSync("/proc/sys/kernel/random/boot_id", "utf8")),
      pid_namespace: readOr(() => readlinkSync("/proc/self/ns/pid")),
      started_ms: Date.now() - 5_000,
      start_ticks: "",
      token: "t",
    };
    await writeFile(`${path}.lock`, JSON.stringify(claim) + "\n");
    expect(() => new AtofExporter({ type: "file", path })).toThrow(
      /already written by another process: process 2000000000 on a host that did not give its name/,
    );

    const twoMinutesAgo = new Date(Date.now() - 120_000);
    await utimes(`${path}.lock`, twoMinutesAgo, twoMinutesAgo);
    const next = new AtofExporter({ type: "file", path });
    await next.shutdown();
    expect(next.diagnostics().map((d) => d.message)).toEqual([
      `${path}.lock: took over the stale claim of process 2000000000 on a host that did not give its name (no heartbeat for 60 s)`,
    ]);
  });
});
