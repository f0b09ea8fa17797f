import { spawn } from "node:child_process";
import { basename, join, resolve } from "node:path";
import { parseArgs, requireFiles, UsageError } from "./args.js";
import { describeWriteError, type Io } from "./io.js";
import { InputError } from "./input.js";
import { byteProgress } from "./progress.js";
import { formatDuration } from "./viewer/client-logic.js";
import { loadViewDoc } from "./viewer/load.js";
import { writeViewerPage } from "./viewer/page.js";
import { loadRunDiff, markChangedSpans } from "./viewer/run-diff.js";

export const VIEW_HELP = `Usage: relaytrace view FILE... [-o trace.html] [--open] [--title T] [--lenient]
       relaytrace view A --diff B [-o out.html]

Writes ONE self-contained HTML file (no network, no server) showing the input: a waterfall of
every trace's spans with their marks, a detail panel per span, and ATIF trajectories as
conversations. FILEs are ATOF event logs (relaytrace's or another producer's), ATIF
trajectories or OTLP/JSON requests, in any mix; several files merge.
  -o, --output FILE  where the page goes (default trace.html)
  --open             open it in the default browser
  --title T          the page title (default: the input's file name)
  --lenient          skip bad lines of an ATOF file with a warning instead of stopping (a torn
                     last line is always skipped, with a warning)
  --diff B           compare run A with run B (two ATOF files): both runs' spans, and a Diff tab
                     with the steps side by side, changed steps marked (as 'relaytrace diff'),
                     each value cut to 2,000 characters there (the span detail has it whole)

The page holds every span of its inputs: about 3 bytes of heap per byte of ATOF. For larger
recordings, raise Node's heap (NODE_OPTIONS=--max-old-space-size=MB) or use 'relaytrace diff'.`;

/** Opens a file in the desktop's browser; failing to is a warning, never an error. */
function openInBrowser(io: Io, path: string): void {
  const [cmd, args] =
    process.platform === "darwin"
      ? ["open", [path]]
      : process.platform === "win32"
        ? ["cmd", ["/c", "start", "", path]]
        : ["xdg-open", [path]];
  try {
    const child = spawn(cmd, args as string[], { detached: true, stdio: "ignore" });
    child.on("error", () => io.err(`relaytrace: could not start a browser (${cmd}); open ${path} yourself`));
    child.unref();
  } catch {
    io.err(`relaytrace: could not start a browser (${cmd}); open ${path} yourself`);
  }
}

/** `relaytrace view FILE... [-o OUT] [--open] [--title T] [--lenient]` */
export async function viewCommand(io: Io, argv: string[]): Promise<number> {
  const args = parseArgs(argv, {
    command: "view",
    values: ["output", "title", "diff"],
    switches: ["open", "lenient"],
    aliases: { o: "output" },
  });
  if (args.switches.has("help")) {
    io.out(VIEW_HELP);
    return 0;
  }
  const against = args.values.get("diff");
  const files = requireFiles(args.positionals, "view");
  if (against !== undefined && files.length !== 1) throw new UsageError(`view A --diff B takes one file A (got ${files.length})`);
  const inputs = against === undefined ? files : [files[0]!, against];
  const output = args.values.get("output") ?? "trace.html";
  if (inputs.some((f) => resolve(f) === resolve(output))) throw new UsageError(`-o ${output} would overwrite an input file`);
  const title = args.values.get("title") ?? (against !== undefined ? `${basename(files[0]!)} vs ${basename(against)}` : undefined);
  const lenient = args.switches.has("lenient");
  const onWarning = (message: string) => io.err(`relaytrace: warning: ${message}`);
  const doc = await loadViewDoc(inputs, {
    ...(title !== undefined ? { title } : {}),
    ...(lenient ? { lenient: true } : {}),
    progressFor: (file) => byteProgress(io, `reading ${file}`),
    onWarning,
  });
  if (against !== undefined) {
    doc.diff = await loadRunDiff(files[0]!, against, { ...(lenient ? { lenient: true } : {}) });
    markChangedSpans(doc, doc.diff);
  }
  let bytes: number;
  try {
    bytes = await writeViewerPage(doc, output);
  } catch (error) {
    throw new InputError(`cannot write ${output}: ${describeWriteError(error)}`);
  }
  const t = doc.totals;
  const parts = [
    `${t.spans.toLocaleString("en-US")} spans`,
    `${t.errors} errors`,
    `${t.traces} traces`,
    `${t.tokens.toLocaleString("en-US")} tokens`,
    `wall time ${formatDuration(t.wallTime)}`,
  ];
  if (t.trajectories > 0) parts.push(`${t.trajectories} trajectories, ${t.steps} steps`);
  if (doc.diff)
    parts.push(doc.diff.equal ? "runs equivalent" : `${doc.diff.changeCount} ${doc.diff.changeCount === 1 ? "change" : "changes"}`);
  io.err(`wrote ${output} (${(bytes / 1024).toFixed(0)} KB: ${parts.join(", ")})`);
  if (args.switches.has("open")) openInBrowser(io, resolve(output));
  return 0;
}

/** The demo's own viewer page, beside its ATOF and ATIF files. */
export async function writeDemoView(atofPath: string, atifPaths: readonly string[], outDir: string): Promise<string> {
  const path = join(outDir, "trace.html");
  await writeViewerPage(await loadViewDoc([atofPath, ...atifPaths], { title: "relaytrace demo" }), path);
  return path;
}
