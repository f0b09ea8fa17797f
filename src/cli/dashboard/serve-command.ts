import { parseArgs, UsageError } from "../args.js";
import type { Io } from "../io.js";
import { nextStopSignal } from "../stop-signal.js";
import { startDashboard, type DashboardServer } from "./server/dashboard-server.js";

export const SERVE_HELP = `Usage: relaytrace serve [DIR] [--port N] [--host H]

A local dashboard over a directory of ATOF files (default ./relaytrace-out): every *.jsonl in it,
in name order, read as one input and followed as it grows (rotated files included). The page
lists one row per run (filter by session, user, tag, status and text; sort by time, duration
or cost), shows a session's runs together, a run's waterfall and span detail, and two runs
compared step by step. It is served by this command alone: no CDN, no request anywhere else.
The first line is 'relaytrace dashboard on http://HOST:PORT'.
  --port N   listen on port N (default: a free port the OS chooses)
  --host H   listen on address H (default 127.0.0.1: this machine only)
Stop it with Ctrl-C (SIGINT) or SIGTERM (exit 0).`;

function portOf(value: string | undefined): number {
  if (value === undefined) return 0;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw new UsageError(`--port must be a port number 0-65535 (got "${value}")`);
  return port;
}

/** `relaytrace serve [DIR] [--port N] [--host H]`: serves until SIGINT or SIGTERM. */
export async function serveCommand(io: Io, argv: string[]): Promise<number> {
  const args = parseArgs(argv, { command: "serve", values: ["port", "host"] });
  if (args.switches.has("help")) {
    io.out(SERVE_HELP);
    return 0;
  }
  if (args.positionals.length > 1) throw new UsageError(`serve takes one DIR (got ${args.positionals.length})`);
  const dir = args.positionals[0] ?? "relaytrace-out";
  const port = portOf(args.values.get("port"));
  const host = args.values.get("host");
  if (host === "") throw new UsageError("--host needs an address");
  // Listening for the signals before the first line: a caller may send one as soon as it reads it.
  const stopped = nextStopSignal();
  let server: DashboardServer;
  try {
    server = await startDashboard({ dir, port, ...(host !== undefined ? { host } : {}) });
  } catch (error) {
    stopped.cancel();
    throw error;
  }
  io.out(`relaytrace dashboard on ${server.url}`);
  const signal = await stopped.signal;
  await server.close();
  io.err(`relaytrace dashboard stopped by ${signal}`);
  return 0;
}
