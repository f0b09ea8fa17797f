import { readFile } from "node:fs/promises";
import { beforeAll, describe, expect, it } from "vitest";
import { natCheck, relaytraceFiles, type NatReport } from "../support/interop/nat.js";
import { OUTPUT_ROOT, runAgentScenario, runDemo } from "../support/interop/scenarios.js";

/**
 * NVIDIA NeMo Agent Toolkit (nvidia-nat-atif from PyPI, pinned) reads what relaytrace writes:
 * every ATIF file of every interop run validates as a NAT `Trajectory`, and NAT's ATOF reader
 * parses every ATOF line. This file runs last, after the Jaeger, collector and Phoenix runs.
 */
let files: { atif: string[]; atof: string[] };
let report: Record<string, NatReport>;

beforeAll(async () => {
  // Its own runs too, so the file stands alone: the demo and the two-process agent run.
  await runDemo([]);
  await runAgentScenario({ projection: "full", serviceName: "relaytrace-nat" });
  files = await relaytraceFiles(OUTPUT_ROOT);
  report = await natCheck([...files.atif, ...files.atof]);
}, 180_000);

describe("NAT", () => {
  it("validates every ATIF file the interop runs wrote as a NAT Trajectory", () => {
    expect(files.atif.length).toBeGreaterThanOrEqual(3);
    const failures = files.atif.filter((f) => "error" in report[f]!).map((f) => ({ file: f, ...report[f] }));
    expect(failures).toEqual([]);
  });

  it("reads every line of every ATOF file the interop runs wrote", async () => {
    expect(files.atof.length).toBeGreaterThanOrEqual(3);
    for (const file of files.atof) {
      const lines = (await readFile(file, "utf8")).split("\n").filter((l) => l.trim() !== "").length;
      expect({ file, report: report[file] }).toEqual({ file, report: expect.objectContaining({ kind: "atof", lines, events: lines }) });
    }
  });

  it("sees the agent run's tool calls and the resumed run as its own trajectory", () => {
    const agentRuns = files.atif.filter((f) => f.includes("/agent-")).map((f) => report[f] as Extract<NatReport, { kind: "atif" }>);
    // Per agent scenario run: the halted trajectory with its three tool calls, and the resumed one.
    expect(agentRuns.some((r) => r.tool_calls[0] === 3)).toBe(true);
    expect(agentRuns.some((r) => r.tool_calls[0] === 0 && r.steps[0]! >= 1)).toBe(true);
  });
});
