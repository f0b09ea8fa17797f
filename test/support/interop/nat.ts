import { execFile } from "node:child_process";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { ROOT } from "./scenarios.js";
import { toolPath } from "./tools.js";

/** What NAT's own models made of one file (see test/interop/nat/check_files.py), or NAT's error. */
export type NatReport =
  | { kind: "atif"; trajectories: number; steps: number[]; tool_calls: number[]; session_ids: string[] }
  | { kind: "atof"; lines: number; events: number; names: string[] }
  | { error: string };

/** Runs NAT (nvidia-nat-atif in its cached virtual environment) over the given files. */
export async function natCheck(files: string[]): Promise<Record<string, NatReport>> {
  const python = toolPath("install-python.sh", "nat-atif");
  const { stdout } = await promisify(execFile)(python, [join(ROOT, "test/interop/nat/check_files.py"), ...files], {
    maxBuffer: 64 * 1024 * 1024,
    timeout: 120_000,
  });
  return JSON.parse(stdout) as Record<string, NatReport>;
}

/** Every ATIF trajectory file (`relaytrace-atif-*.json`) and ATOF log (`*.jsonl`) under `root`. */
export async function relaytraceFiles(root: string): Promise<{ atif: string[]; atof: string[] }> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  const files = entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
  return {
    atif: files.filter((f) => /relaytrace-atif-[^/]*\.json$/.test(f)).sort(),
    atof: files.filter((f) => f.endsWith(".jsonl")).sort(),
  };
}
