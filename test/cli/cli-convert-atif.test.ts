import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import type { Io } from "../../src/cli/io.js";
import { natTrajectoryProblems } from "../support/nat-trajectory.js";
import { runHaltedAndResumed, runWithSubagent } from "../support/loop-trajectories.js";
import { scopeLine, writeLines } from "../support/atof-files.js";

let work: string;
let twoRuns: string;
let oneRun: string;

function capture(): Io & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, out: (l) => void stdout.push(l), err: (l) => void stderr.push(l), progress: () => undefined };
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "relaytrace-convert-atif-"));
  const halted = await runHaltedAndResumed();
  await halted.close();
  twoRuns = join(work, "two-runs.jsonl");
  await writeFile(twoRuns, halted.events.map((e) => JSON.stringify(e)).join("\n") + "\n");
  const nested = await runWithSubagent();
  await nested.close();
  oneRun = join(work, "one-run.jsonl");
  await writeFile(oneRun, nested.events.map((e) => JSON.stringify(e)).join("\n") + "\n");
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe("relaytrace convert --to atif", () => {
  it("one run: a single trajectory object on stdout (never an array), agent named by its scope", async () => {
    const io = capture();
    expect(await main(["convert", oneRun, "--to", "atif"], io)).toBe(0);
    const doc = JSON.parse(io.stdout.join("\n")) as { agent: { name: string }; subagent_trajectories: unknown[] };
    expect(Array.isArray(doc)).toBe(false);
    expect(doc.agent.name).toBe("planner");
    expect(doc.subagent_trajectories).toHaveLength(1);
    expect(natTrajectoryProblems([doc])).toEqual([]);
  });

  it("several runs with -o DIR: one file per trajectory, each a valid NAT Trajectory", async () => {
    const io = capture();
    const out = join(work, "trajectories");
    expect(await main(["convert", twoRuns, "--to", "atif", "-o", out], io)).toBe(0);
    const files = (await readdir(out)).sort();
    expect(files).toHaveLength(2);
    for (const f of files) expect(f).toMatch(/^relaytrace-atif-[0-9a-f-]{36}\.json$/);
    const docs = await Promise.all(
      files.map(async (f) => JSON.parse(await readFile(join(out, f), "utf8")) as { trajectory_id: string; steps: unknown[] }),
    );
    for (const [i, d] of docs.entries()) expect(files[i]).toBe(`relaytrace-atif-${d.trajectory_id}.json`);
    expect(natTrajectoryProblems(docs)).toEqual([]);
    expect(io.stderr.at(-1)).toMatch(/^2 trajectories from \d+ events$/);
  });

  it("several runs without -o is a usage error that says to pass -o DIR; -o FILE for one run writes that file", async () => {
    const io = capture();
    expect(await main(["convert", twoRuns, "--to", "atif"], io)).toBe(2);
    expect(io.stderr.join("\n")).toMatch(/holds 2 runs: pass -o DIR to write one trajectory file per run/);
    expect(io.stdout).toEqual([]);
    const single = join(work, "single.json");
    expect(await main(["convert", oneRun, "--to", "atif", "-o", single, "--agent-name", "renamed"], capture())).toBe(0);
    const doc = JSON.parse(await readFile(single, "utf8")) as { agent: { name: string } };
    expect(doc.agent.name).toBe("renamed");
  });

  it("a mark just after its run ended still lands in its trajectory; one after the next run started is in none, and says so in one warning line", async () => {
    const base = 1_772_366_400_000_000;
    const path = join(work, "late-marks.jsonl");
    const mark = (uuid: string, parent: string, us: number) =>
      JSON.stringify({
        kind: "mark",
        atof_version: "0.1",
        uuid,
        parent_uuid: parent,
        timestamp: us,
        name: uuid,
        category: null,
        category_profile: null,
        data: null,
        data_schema: null,
        metadata: null,
      });
    const run = (id: string, us: number) => [
      scopeLine("start", id, null, us, { name: id, category: "agent", data: { input: `question ${id}` } }),
      scopeLine("start", `${id}-step`, id, us + 1, { name: "step" }),
      scopeLine("end", `${id}-step`, id, us + 2, { name: "step" }),
      scopeLine("end", id, null, us + 3, { name: id, category: "agent", data: { output: `answer ${id}` } }),
    ];
    const [bStart, ...bRest] = run("b", base + 10);
    await writeLines(path, [
      ...run("a", base),
      mark("just-after", "a-step", base + 5),
      bStart!,
      mark("too-late", "a-step", base + 10),
      ...bRest,
    ]);
    const out = join(work, "late-marks");
    const io = capture();
    expect(await main(["convert", path, "--to", "atif", "-o", `${out}/`], io)).toBe(0);
    expect(io.stderr.filter((l) => l.includes("warning"))).toEqual([
      "relaytrace: warning: 1 mark or end event came when no run of theirs was open (it had ended, or never started) and are in no trajectory",
    ]);
    const a = await readFile(join(out, "relaytrace-atif-a.json"), "utf8");
    expect(a).toContain("just-after");
    expect(a).not.toContain("too-late");
  });
});
