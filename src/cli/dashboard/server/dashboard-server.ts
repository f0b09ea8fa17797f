import { realpath, stat } from "node:fs/promises";
import { InputError } from "../../input.js";
import { urlHost } from "./host-check.js";
import { listenDashboard } from "./http-server.js";
import { LiveIndex, type LiveIndexOptions } from "./live-index.js";

export interface DashboardOptions extends LiveIndexOptions {
  /** The directory of ATOF files. */
  dir: string;
  /** Default 0: a port the OS picks. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
}

export interface DashboardServer {
  url: string;
  index: LiveIndex;
  close(): Promise<void>;
}

/** The directory's real path; a missing directory or a file is an InputError naming it. */
async function directory(dir: string): Promise<string> {
  try {
    const real = await realpath(dir);
    if (!(await stat(real)).isDirectory()) throw new InputError(`${dir}: not a directory (serve reads a directory of ATOF files)`);
    return real;
  } catch (error) {
    if (error instanceof InputError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new InputError(`${dir}: no such directory`);
    if (code === "EACCES") throw new InputError(`${dir}: permission denied`);
    throw new InputError(`${dir}: cannot read (${(error as Error).message})`);
  }
}

/**
 * Starts the dashboard over a directory: the server listens at once and the index reads the
 * files behind it (the page shows it filling), then follows them.
 */
export async function startDashboard(options: DashboardOptions): Promise<DashboardServer> {
  const realDir = await directory(options.dir);
  const index = new LiveIndex(realDir, options);
  const host = options.host ?? "127.0.0.1";
  let http;
  try {
    http = await listenDashboard(index, realDir, host, options.port ?? 0);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE" || code === "EACCES" || code === "EADDRNOTAVAIL" || code === "ENOTFOUND")
      throw new InputError(`cannot listen on ${urlHost(host)}:${options.port ?? 0}: ${code}`);
    throw error;
  }
  const started = index.start();
  return {
    url: `http://${urlHost(http.host)}:${http.port}`,
    index,
    async close() {
      index.close();
      await started.catch(() => undefined);
      http.server.closeAllConnections();
      await new Promise<void>((resolve) => http.server.close(() => resolve()));
    },
  };
}
