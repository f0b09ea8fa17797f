import { createWriteStream } from "node:fs";
import { splitFileLines } from "../events/line-splitter.js";
import { once } from "node:events";
import { parseArgs, requireFiles, UsageError } from "./args.js";
import { atofFileEvents } from "./atof-file-reader.js";
import type { Io } from "./io.js";
import { SpillDirectory } from "./spill-directory.js";
import { diffRunStreams, type RunChange, type RunTotals } from "../diff/index.js";
import type { Json } from "../events/json.js";
import { jsonText } from "../events/json-text.js";

export const DIFF_HELP = `Usage: relaytrace diff A B [--json] [--lenient]

Compares two recorded runs (ATOF files) step by step (a step is a model call and the tool calls
after it), ignoring ids, timestamps and durations: tool calls added, removed or with changed
arguments, changed tool results, changed model output, status changes and token changes. Steps
are lined up first (looking up to 64 steps ahead): a model call only one run made is one change.
Latency is reported, never a difference. Exit status: 0 equivalent, 1 different, 2 unreadable
(0 too when the reader of the output goes away: 'relaytrace diff A B | head').
  --json     print {"equal": bool, "changes": [...]}, each change with its kind, step, tool and
             both values (what diffRuns(a, b) returns)
  --lenient  skip bad lines with a warning instead of stopping (a torn last line is always
             skipped, with a warning)`;

const MAX_SHOWN = 2000;

function shown(value: unknown): string {
  const text = jsonText(value as Json);
  return text.length > 400 ? `${text.slice(0, 400)}… (${text.length} characters)` : text;
}

/** One change as a line for a person. */
export function changeLine(c: RunChange): string {
  const at = `step ${c.step}`;
  switch (c.kind) {
    case "tool_call_added":
      return `${at}: + tool call ${c.tool} ${shown(c.b.args)}`;
    case "tool_call_removed":
      return `${at}: - tool call ${c.tool} ${shown(c.a.args)}`;
    case "tool_args_changed":
      return `${at}: tool ${c.tool} arguments ${shown(c.a)} → ${shown(c.b)}`;
    case "tool_result_changed":
      return `${at}: tool ${c.tool} result ${shown(c.a)} → ${shown(c.b)}`;
    case "output_changed":
      return `${at}: model output ${shown(c.a)} → ${shown(c.b)}`;
    case "status_changed":
      if (c.call !== undefined) {
        const tools = c.call.tools.length > 0 ? `, tools ${shown(c.call.tools.map((t) => t.tool))}` : "";
        return `${at}: ${c.a === null ? "+" : "-"} model call (${c.a ?? c.b}) output ${shown(c.call.output)}${tools}`;
      }
      return `${at}: model call status ${c.a ?? "(none)"} → ${c.b ?? "(none)"}`;
    case "usage_changed":
      return `${at}: tokens ${shown(c.a)} → ${shown(c.b)}`;
  }
}

function delta(a: number, b: number, digits: number): string {
  const d = b - a;
  return `${a.toFixed(digits)} → ${b.toFixed(digits)} (${d >= 0 ? "+" : ""}${d.toFixed(digits)})`;
}

function totalsLine(t: { a: RunTotals; b: RunTotals }): string {
  return [
    `model calls ${t.a.steps} → ${t.b.steps}`,
    `tokens ${delta(t.a.tokens, t.b.tokens, 0)}`,
    `latency ms ${delta(t.a.latencyMs, t.b.latencyMs, 0)}`,
    ...(t.a.costUsd > 0 || t.b.costUsd > 0 ? [`cost USD ${delta(t.a.costUsd, t.b.costUsd, 6)}`] : []),
  ].join(", ");
}

/** JSON text with every character a terminal would act on or hide written as a `\\u` escape (still the same JSON). */
function terminalSafeJson(text: string): string {
  return text.replace(
    /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g,
    (ch) => "\\u" + ch.charCodeAt(0).toString(16).padStart(4, "0"),
  );
}

/** `--json`: changes spill to a private file as they come, so memory stays bounded; then the document is printed, a change a line. */
async function diffAsJson(io: Io, a: string, b: string, lenient: boolean): Promise<number> {
  const spill = new SpillDirectory("relaytrace-diff-");
  try {
    const path = spill.nextFile("changes");
    const out = createWriteStream(path);
    const { changes } = await diffRunStreams(read(io, a, lenient), read(io, b, lenient), async (change) => {
      if (!out.write(terminalSafeJson(jsonText(change as unknown as Json)) + "\n")) await once(out, "drain");
    });
    out.end();
    await once(out, "finish");
    io.out(`{"equal":${changes === 0},"changes":[`);
    let first = true;
    // The spill's lines are read as they are printed: a reader that queued lines ahead of a slow
    // stdout (readline's async iterator does) would hold the whole document again.
    for await (const line of splitFileLines(path, Number.MAX_SAFE_INTEGER, 64 * 1024)) {
      if (line.text === null) continue;
      io.out((first ? "" : ",") + line.text);
      first = false;
      await io.drained?.();
    }
    io.out("]}");
    return changes === 0 ? 0 : 1;
  } finally {
    spill.remove();
  }
}

function read(io: Io, file: string, lenient: boolean) {
  return atofFileEvents(file, { ...(lenient ? { lenient } : {}), onWarning: (message) => io.err(`relaytrace: warning: ${message}`) });
}

/** `relaytrace diff A B [--json] [--lenient]` */
export async function diffCommand(io: Io, argv: string[]): Promise<number> {
  const args = parseArgs(argv, { command: "diff", switches: ["json", "lenient"] });
  if (args.switches.has("help")) {
    io.out(DIFF_HELP);
    return 0;
  }
  const files = requireFiles(args.positionals, "diff");
  if (files.length !== 2) throw new UsageError(`diff compares two files (got ${files.length})`);
  const [a, b] = files as [string, string];
  const lenient = args.switches.has("lenient");
  if (args.switches.has("json")) return diffAsJson(io, a, b, lenient);
  let printed = 0;
  const { changes, totals } = await diffRunStreams(read(io, a, lenient), read(io, b, lenient), (change) => {
    if (printed++ < MAX_SHOWN) io.out(changeLine(change));
  });
  if (changes > MAX_SHOWN) io.out(`… and ${changes - MAX_SHOWN} more changes (--json lists them all)`);
  io.out(changes === 0 ? `equivalent: ${totalsLine(totals)}` : `${changes} changes: ${totalsLine(totals)}`);
  return changes === 0 ? 0 : 1;
}
