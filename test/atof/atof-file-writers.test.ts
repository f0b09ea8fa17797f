import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { AtofExporter } from "../../exporters/atof/index.js";
import { parseAtofLine } from "../../src/events/atof-parse.js";
import { markEvent } from "../support/atof-files.js";
import { startNode, waitForOutput, type Child } from "../support/child-process.js";

const HOLDER = fileURLToPath(new URL("../fixtures-procs/atof-claim-holder.mjs", import.meta.url));
const EXIT_WRITER = fileURLToPath(new URL("../fixtures-procs/atof-exit-writer.mjs", import.meta.url));
const built = existsSync(fileURLToPath(new URL("../../dist/exporters/atof/index.js", import.meta.url)));

let dir: string;
const children: Child[] = [];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "relaytrace-atof-writers-"));
});
afterEach(() => {
  for (const child of children.splice(0))
    if (child.process.exitCode === null && child.process.signalCode === null) child.process.kill("SIGKILL");
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function holder(path: string, tag: string, then: "hold" | "exit" | "shutdown" = "hold", mode = "append"): Child {
  const child = startNode(HOLDER, [path, mode, tag, then]);
  children.push(child);
  return child;
}

/** Every line is a whole ATOF event; returns the uuids in file order. */
async function uuidsOf(path: string): Promise<string[]> {
  const text = await readFile(path, "utf8");
  expect(text.endsWith("\n")).toBe(true);
  return text
    .slice(0, -1)
    .split("\n")
    .map((line, i) => parseAtofLine(line, i + 1).uuid);
}

describe.skipIf(!built)("one writer per ATOF file across processes (real child processes)", () => {
  it("a second process is refused while the first writes, in either mode, with the holder's pid; after its shutdown the file is free", async () => {
    const path = join(dir, "shared.jsonl");
    const first = holder(path, "a");
    await waitForOutput(first, "ready");
    const pid = first.process.pid!;

    for (const mode of ["append", "overwrite"] as const) {
      expect(() => new AtofExporter({ type: "file", path, mode })).toThrow(
        new RegExp(
          `already written by another process: process ${pid}, started [^ ]+ writes it \\(claim .*shared\\.jsonl\\.lock\\); one writer per file`,
        ),
      );
    }
    const second = holder(path, "b");
    expect((await second.exited).code).toBe(3);
    expect(second.stdout()).toContain(`refused: AtofExporter: ${path} is already written by another process: process ${pid}`);

    first.process.kill("SIGTERM");
    expect((await first.exited).code).toBe(0);
    expect(existsSync(`${path}.lock`)).toBe(false);
    const next = new AtofExporter({ type: "file", path });
    next.onEvent(markEvent("after"));
    await next.shutdown();
    // The first writer's lines are all there, whole, in order, and nothing of the refused one.
    const uuids = await uuidsOf(path);
    const fromFirst = uuids.filter((u) => u.startsWith("a-"));
    expect(fromFirst.length).toBeGreaterThanOrEqual(3);
    expect(fromFirst).toEqual(fromFirst.map((_, i) => `a-${i}`));
    expect(uuids.at(-1)).toBe("after");
    expect(uuids.some((u) => u.startsWith("b-"))).toBe(false);
    expect(next.diagnostics()).toEqual([]);
  });

  it("a claim left by a killed writer does not block the next run: it is taken over and reported", async () => {
    const path = join(dir, "killed.jsonl");
    const first = holder(path, "a");
    await waitForOutput(first, "ready");
    const pid = first.process.pid!;
    first.process.kill("SIGKILL");
    await first.exited;
    expect(existsSync(`${path}.lock`)).toBe(true);

    const next = new AtofExporter({ type: "file", path });
    next.onEvent(markEvent("after-crash"));
    await next.shutdown();
    expect((await uuidsOf(path)).at(-1)).toBe("after-crash");
    expect(next.diagnostics().find((d) => d.code === "atof.stale_claim_removed")?.message).toBe(
      `${path}.lock: took over the stale claim of process ${pid} (it no longer runs)`,
    );
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it.skipIf(!existsSync("/proc/self/stat"))(
    "a killed writer's pid now used by an unrelated process does not keep the claim alive",
    async () => {
      const path = join(dir, "reused.jsonl");
      const first = holder(path, "a");
      await waitForOutput(first, "ready");
      const claim = JSON.parse(await readFile(`${path}.lock`, "utf8")) as { pid: number };
      first.process.kill("SIGKILL");
      await first.exited;
      // The pid is given to another live process (a long-running sleeper started after the writer).
      const sleeper = startNode("-e", ["setInterval(() => {}, 1000)"]);
      children.push(sleeper);
      await writeFile(`${path}.lock`, JSON.stringify({ ...claim, pid: sleeper.process.pid }) + "\n");

      const next = new AtofExporter({ type: "file", path });
      await next.shutdown();
      expect(next.diagnostics().find((d) => d.code === "atof.stale_claim_removed")?.message).toContain(`process ${sleeper.process.pid}`);
    },
  );

  it("process.exit() and shutdown() both give the file up for the next process", async () => {
    const exited = join(dir, "exited.jsonl");
    const child = startNode(EXIT_WRITER, [exited, "50"]);
    expect((await child.exited).code).toBe(0);
    expect(existsSync(`${exited}.lock`)).toBe(false);
    expect(await uuidsOf(exited)).toHaveLength(50);

    const shut = join(dir, "shut.jsonl");
    const alive = holder(shut, "a", "shutdown");
    await waitForOutput(alive, "shut down");
    expect(existsSync(`${shut}.lock`)).toBe(false); // released while its process still runs
    const next = new AtofExporter({ type: "file", path: shut });
    await next.shutdown();
    expect(next.diagnostics()).toEqual([]);
  });
});

describe("a claim from another host or container (its pid means nothing here)", () => {
  it("is honoured while its heartbeat is fresh and taken over once it has expired", async () => {
    const path = join(dir, "remote.jsonl");
    const claim = {
      pid: 7,
      host: "another-host",
      boot: "",
      pid_namespace: "",
      started_ms: Date.now() - 5_000,
      start_ticks: "",
      token: "t",
    };
    await writeFile(`${path}.lock`, JSON.stringify(claim) + "\n");
    expect(() => new AtofExporter({ type: "file", path })).toThrow(/already written by another process: process 7 on host another-host/);

    const twoMinutesAgo = new Date(Date.now() - 120_000);
    await utimes(`${path}.lock`, twoMinutesAgo, twoMinutesAgo);
    const next = new AtofExporter({ type: "file", path });
    next.onEvent(markEvent("taken-over"));
    await next.shutdown();
    expect(await uuidsOf(path)).toEqual(["taken-over"]);
    expect(next.diagnostics().map((d) => d.message)).toEqual([
      `${path}.lock: took over the stale claim of process 7 on host another-host (no heartbeat for 60 s)`,
    ]);
  });

  it("a claim path that holds something other than a claim (a symlink) is never removed or followed: the sink is refused", async () => {
    const path = join(dir, "planted.jsonl");
    const victim = join(dir, "victim.txt");
    await writeFile(victim, "precious\n");
    const { symlink } = await import("node:fs/promises");
    await symlink(victim, `${path}.lock`);
    expect(() => new AtofExporter({ type: "file", path })).toThrow(/planted\.jsonl\.lock exists and is not a writer claim/);
    expect(await readFile(victim, "utf8")).toBe("precious\n");
  });
});
