import { stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { atofToAtif } from "../../exporters/atif/project.js";
import type { AtifTrajectory } from "../../exporters/atif/types.js";
import type { AtofEvent } from "../events/types.js";
import type { Json } from "../events/json.js";
import { jsonText } from "../events/json-text.js";
import { makeDirectory } from "../../exporters/files/make-directory.js";
import { UsageError } from "./args.js";
import { InputError } from "./input.js";
import type { Io } from "./commands.js";

/** The file name a trajectory gets in an output directory: the exporter's own naming. */
export function trajectoryFileName(doc: AtifTrajectory): string {
  return `relaytrace-atif-${doc.trajectory_id ?? doc.session_id ?? "trajectory"}.json`;
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

async function writeOne(path: string, doc: AtifTrajectory, describe: (e: unknown) => string): Promise<void> {
  try {
    await writeFile(path, `${jsonText(doc as unknown as Json, 2)}\n`);
  } catch (error) {
    throw new InputError(`cannot write ${path}: ${describe(error)}`);
  }
}

/**
 * `convert --to atif`: each trajectory is one ATIF document, as NAT's loader expects (never an
 * array). One run goes to stdout or to `-o FILE`; with `-o DIR` (an existing directory, a path
 * ending in `/`, or any path when the input holds several runs) each run gets its own
 * `relaytrace-atif-<trajectory_id>.json`. Several runs without `-o` are a usage error.
 */
export async function convertToAtif(
  io: Io,
  events: AtofEvent[],
  file: string,
  output: string | undefined,
  agentName: string | undefined,
  describeWriteError: (e: unknown) => string,
): Promise<number> {
  const docs = atofToAtif(events, agentName === undefined ? {} : { agent: { name: agentName, version: "0.0.0" } });
  if (docs.length === 0) throw new InputError(`${file}: no trajectory could be built (no agent, LLM or root scope with content)`);
  if (output === undefined) {
    if (docs.length > 1) throw new UsageError(`${file} holds ${docs.length} runs: pass -o DIR to write one trajectory file per run`);
    io.out(jsonText(docs[0] as unknown as Json, 2)); // not JSON.stringify: it recurses, and subagents nest as deep as the input
    return 0;
  }
  const intoDirectory = docs.length > 1 || output.endsWith("/") || (await isDirectory(output));
  if (!intoDirectory) {
    await writeOne(output, docs[0]!, describeWriteError);
    io.err(`wrote ${output} (${events.length} events in)`);
    return 0;
  }
  try {
    makeDirectory(output); // not mkdir -p: that loops forever on /proc
  } catch (error) {
    throw new InputError(`cannot write into ${output}: ${describeWriteError(error)}`);
  }
  for (const doc of docs) {
    const path = join(output, trajectoryFileName(doc));
    await writeOne(path, doc, describeWriteError);
    io.err(`wrote ${path}`);
  }
  io.err(`${docs.length} trajectories from ${events.length} events`);
  return 0;
}
