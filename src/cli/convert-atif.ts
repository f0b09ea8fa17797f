import { constants } from "node:fs";
import { open, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { TrajectoryStream } from "./trajectory-stream.js";
import type { AtifTrajectory } from "../../exporters/atif/types.js";
import type { AtofEvent } from "../events/types.js";
import type { Json } from "../events/json.js";
import { jsonText } from "../events/json-text.js";
import { makeDirectory } from "../../exporters/files/make-directory.js";
import { safeFileNamePart } from "../../exporters/files/safe-file-name.js";
import { UsageError } from "./args.js";
import { InputError } from "./input.js";
import type { Io } from "./io.js";

/**
 * The file name a trajectory gets in an output directory: the exporter's own naming, with the id
 * (read from the input) reduced to a safe name part; `number` > 1 tells apart ids that collide.
 */
export function trajectoryFileName(doc: AtifTrajectory, number = 1): string {
  const part = safeFileNamePart(doc.trajectory_id ?? doc.session_id ?? "trajectory");
  return `relaytrace-atif-${part}${number > 1 ? `-${number}` : ""}.json`;
}

/** Create only: an existing file, or a link planted at the name, is never written through. */
const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
/** How many numbered names are tried before a name is given up as taken. */
const MAX_NAME_NUMBER = 10_000;

/**
 * Writes `doc` as a new file in `directory`: the first of its names (plain, then `-2`, `-3`, …)
 * that neither this run has used nor exists there. Returns the path written.
 */
async function writeNewFile(directory: string, doc: AtifTrajectory, used: Set<string>, describe: (e: unknown) => string): Promise<string> {
  const text = `${jsonText(doc as unknown as Json, 2)}\n`;
  for (let number = 1; number <= MAX_NAME_NUMBER; number++) {
    const name = trajectoryFileName(doc, number);
    if (used.has(name)) continue;
    const path = join(directory, name);
    let handle;
    try {
      handle = await open(path, CREATE_NEW, 0o644);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EEXIST") continue; // an earlier file, or a link planted there
      throw new InputError(`cannot write ${path}: ${describe(error)}`);
    }
    used.add(name);
    try {
      await handle.writeFile(text);
    } catch (error) {
      throw new InputError(`cannot write ${path}: ${describe(error)}`);
    } finally {
      await handle.close();
    }
    return path;
  }
  throw new InputError(`cannot write into ${directory}: ${MAX_NAME_NUMBER} files named after ${trajectoryFileName(doc)} exist already`);
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

export interface ConvertToAtifOptions {
  /** The input's name(s), for messages. */
  file: string;
  output: string | undefined;
  agentName: string | undefined;
  describeWriteError: (e: unknown) => string;
  /** Events read so far (all of them once the stream is done). */
  eventCount: () => number;
  /** What bounds a trajectory in this input; asked when the first event arrives. */
  boundaries: () => "agent" | "root";
}

/**
 * `convert --to atif`: each trajectory is one ATIF document, as NAT's loader expects (never an
 * array). One run goes to stdout or to `-o FILE`; with `-o DIR` (an existing directory, a path
 * ending in `/`, or any path when the input holds several runs) each run gets its own
 * `relaytrace-atif-<trajectory_id>.json` (the id made a safe file name, numbered on a collision;
 * never written through an existing file or link). Several runs without `-o` are a usage error.
 * Trajectories are built and written as their root scope ends (see TrajectoryStream): only the
 * first is held, until a second shows whether the output is a file or a directory.
 */
export async function convertToAtif(io: Io, events: AsyncIterable<AtofEvent>, options: ConvertToAtifOptions): Promise<number> {
  const { file, output, describeWriteError } = options;
  let intoDirectory = output !== undefined && (output.endsWith("/") || (await isDirectory(output)));
  let first: AtifTrajectory | undefined;
  let count = 0;
  const usedNames = new Set<string>();
  const writeIntoDirectory = async (doc: AtifTrajectory) => {
    const path = await writeNewFile(output!, doc, usedNames, describeWriteError);
    io.err(`wrote ${path}`);
  };
  const openDirectory = () => {
    try {
      makeDirectory(output!); // not mkdir -p: that loops forever on /proc
    } catch (error) {
      throw new InputError(`cannot write into ${output}: ${describeWriteError(error)}`);
    }
  };
  const onTrajectory = async (doc: AtifTrajectory) => {
    count++;
    if (output === undefined) {
      first ??= doc; // several runs are an error at the end; only the count is kept of the others
      return;
    }
    if (!intoDirectory && count === 1) {
      first = doc;
      return;
    }
    if (!intoDirectory || count === 1) {
      intoDirectory = true;
      openDirectory();
      if (first !== undefined) await writeIntoDirectory(first);
      first = undefined;
    }
    await writeIntoDirectory(doc);
  };
  let stream: TrajectoryStream | undefined;
  const agent = options.agentName === undefined ? {} : { agent: { name: options.agentName, version: "0.0.0" } };
  for await (const event of events) {
    stream ??= new TrajectoryStream({ ...agent, boundaries: options.boundaries() }, onTrajectory);
    await stream.add(event);
  }
  await stream?.end();
  if (stream !== undefined && stream.late > 0) {
    io.err(
      `relaytrace: warning: ${stream.late} mark or end event${stream.late === 1 ? "" : "s"} came when no run of theirs was open ` +
        "(it had ended, or never started) and are in no trajectory",
    );
  }
  const eventCount = options.eventCount();
  if (count === 0) throw new InputError(`${file}: no trajectory could be built (no agent, LLM or root scope with content)`);
  if (output === undefined) {
    if (count > 1) throw new UsageError(`${file} holds ${count} runs: pass -o DIR to write one trajectory file per run`);
    io.out(jsonText(first as unknown as Json, 2)); // not JSON.stringify: it recurses, and subagents nest as deep as the input
    return 0;
  }
  if (!intoDirectory) {
    await writeOne(output, first!, describeWriteError);
    io.err(`wrote ${output} (${eventCount} events in)`);
    return 0;
  }
  io.err(`${count} trajectories from ${eventCount} events`);
  return 0;
}
