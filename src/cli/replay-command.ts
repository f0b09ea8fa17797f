import { parseArgs, requireFiles, UsageError } from "./args.js";
import { stat } from "node:fs/promises";
import type { Io } from "./io.js";
import { nextStopSignal } from "./stop-signal.js";
import { atofRecordsOf, describeReadError, InputError } from "./input.js";
import { readablePath, releaseInputCopies } from "./input-spool.js";
import { readWarningLine } from "./read-warnings.js";
import { collectRecordingFile, ReplayRecordingError, serveReplay, type Recording, type ReplayServer } from "../replay/index.js";

export const REPLAY_HELP = `Usage: relaytrace replay FILE [--port N] [--loose]

Starts a model server on 127.0.0.1 that answers the LLM calls recorded in an ATOF file, in
recorded order and in the recorded dialect (OpenAI chat completions and Responses, Anthropic
messages, Gemini generateContent): JSON, or server-sent events when a request streams. Point
any client's base URL at the printed URL. The first line is 'replaying N calls on URL'.
  --port N   listen on port N (default: a free port the OS chooses)
  --loose    answer by order; by default a request whose transcript differs from the recorded
             one at its position gets HTTP 409 with the first difference
Stop it with Ctrl-C (SIGINT) or SIGTERM: it prints a summary line and exits 0 when every call
was served (and matched), 1 otherwise; 2 when the file cannot be read or holds no responses.
It serves what was recorded: data after sanitizers and redaction. The file is read once and
each call's request and reply again when served, so a recording larger than memory replays.`;

function portOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number 0-65535 (got "${value}")`);
  return port;
}

/**
 * The recording in `file`, read in one pass that keeps where each call's lines are: the file
 * stays open while the replay runs, and each request reads its call again. A piped recording
 * is copied to a scratch file first; the copy's directory goes at once (the open file stays
 * readable), since its cleanup re-raises a signal: a signal then stops the replay cleanly.
 */
async function readRecording(io: Io, file: string): Promise<Recording> {
  let path: string;
  try {
    path = await readablePath(file);
    if ((await stat(path)).isDirectory()) throw Object.assign(new Error("is a directory"), { code: "EISDIR" });
  } catch (error) {
    throw describeReadError(file, error);
  }
  const records = atofRecordsOf(file, {
    onWarning: (w) => {
      const line = readWarningLine(file, w);
      if (line !== undefined) io.err(`relaytrace: warning: ${line}`);
    },
  });
  try {
    return await collectRecordingFile(path, records);
  } catch (error) {
    if (error instanceof InputError || (error as NodeJS.ErrnoException).code === undefined) throw error;
    throw describeReadError(file, error);
  } finally {
    releaseInputCopies();
  }
}

async function listen(io: Io, file: string, loose: boolean, port: number | undefined): Promise<ReplayServer> {
  const recording = await readRecording(io, file);
  try {
    return await serveReplay(recording, {
      strict: !loose,
      ...(port !== undefined ? { port } : {}),
      onMismatch: (m) => io.err(`relaytrace replay: call ${m.call} does not match the recording at ${m.path || "(the dialect)"}`),
    });
  } catch (error) {
    if (error instanceof ReplayRecordingError) throw new InputError(`cannot replay ${file}: ${error.message}`);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE" || code === "EACCES") throw new InputError(`cannot listen on 127.0.0.1:${port}: ${code}`);
    throw error;
  }
}

/** `relaytrace replay FILE [--port N] [--loose]`: serves until SIGINT or SIGTERM. */
export async function replayCommand(io: Io, argv: string[]): Promise<number> {
  const args = parseArgs(argv, { command: "replay", values: ["port"], switches: ["loose"] });
  if (args.switches.has("help")) {
    io.out(REPLAY_HELP);
    return 0;
  }
  const files = requireFiles(args.positionals, "replay");
  if (files.length > 1) throw new UsageError(`replay takes one FILE (got ${files.length})`);
  const loose = args.switches.has("loose");
  // Listening for the signals before the first line: a caller may send one as soon as it reads it.
  const port = portOf(args.values.get("port"));
  const stopped = nextStopSignal();
  let server: ReplayServer;
  try {
    server = await listen(io, files[0]!, loose, port);
  } catch (error) {
    stopped.cancel();
    throw error;
  }
  io.out(`replaying ${server.calls} calls on ${server.url}`);
  const signal = await stopped.signal;
  await server.close();
  const mismatches = server.mismatchCount;
  const complete = server.served === server.calls && (loose || mismatches === 0);
  io.out(
    `replay stopped by ${signal}: served ${server.served} of ${server.calls} calls, ${mismatches} mismatches` +
      (complete ? "" : " (incomplete)"),
  );
  return complete ? 0 : 1;
}
