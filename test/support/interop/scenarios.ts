import { execFile } from "node:child_process";
import { mkdir, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { ScenarioOptions } from "../../interop/scenarios/options.js";

const run = promisify(execFile);
export const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
export const CLI = join(ROOT, "dist/src/cli/main.js");

/** What the two-process agent scenario reports. */
export interface AgentScenarioResult {
  first: { status: string; diagnostics: { code: string; count: number }[]; atif: string[] };
  second: { status: string; text: string; diagnostics: { code: string; count: number }[]; atif: string[] };
  /** The W3C traceparent of each model request, both processes. */
  traceparents: string[];
  outDir: string;
}

/** A fresh directory for a program's own state (configuration, database). */
export async function scratchDir(prefix: string): Promise<string> {
  return mkdtemp(join(tmpdir(), `relaytrace-${prefix}-`));
}

/** Where the interop runs write ATIF and ATOF files: all under one root, which the NAT checks read. */
export const OUTPUT_ROOT = process.env["RELAYTRACE_INTEROP_OUT"] ?? tmpdir();

export async function outputDir(prefix: string): Promise<string> {
  await mkdir(OUTPUT_ROOT, { recursive: true });
  return mkdtemp(join(OUTPUT_ROOT, `${prefix}-`));
}

/**
 * Runs test/interop/scenarios/agent-run.ts as its own Node process (which starts the resume
 * process in turn): both import the built package by name, as a user's program would.
 */
export async function runAgentScenario(options: Omit<ScenarioOptions, "outDir"> & { outDir?: string }): Promise<AgentScenarioResult> {
  const outDir = options.outDir ?? (await outputDir("agent"));
  const script = join(ROOT, "test/interop/scenarios/agent-run.ts");
  const { stdout } = await run(process.execPath, ["--import", "tsx", script, JSON.stringify({ ...options, outDir })], {
    cwd: ROOT,
    timeout: 60_000,
  });
  return { ...(JSON.parse(stdout) as Omit<AgentScenarioResult, "outDir">), outDir };
}

/**
 * Runs test/interop/scenarios/gen-ai-latest.ts as its own Node process with `env` added to this
 * one's environment (how a user opts into newer conventions); returns what it printed.
 */
export async function runGenAiLatestScenario(otlp: string, env: Record<string, string>): Promise<{ conventions: string }> {
  const script = join(ROOT, "test/interop/scenarios/gen-ai-latest.ts");
  const { stdout } = await run(process.execPath, ["--import", "tsx", script, otlp], {
    cwd: ROOT,
    timeout: 60_000,
    env: { ...process.env, ...env },
  });
  return JSON.parse(stdout) as { conventions: string };
}

/** `relaytrace demo` as the docs run it; returns stdout and the output directory. */
export async function runDemo(args: string[], outDir?: string): Promise<{ stdout: string; outDir: string }> {
  const dir = outDir ?? (await outputDir("demo"));
  const { stdout } = await run(process.execPath, [CLI, "demo", "--out", dir, ...args], { cwd: ROOT, timeout: 60_000 });
  return { stdout, outDir: dir };
}

/** The trace id of a W3C traceparent header. */
export function traceIdOf(traceparent: string): string {
  return traceparent.split("-")[1] ?? "";
}
