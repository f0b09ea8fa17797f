import type { AtofEvent } from "../events/types.js";
import type { AtifTrajectory } from "../../exporters/atif/types.js";
import { validateAtif } from "../../exporters/atif/validate.js";
import { traceRequestJson } from "../../exporters/otel/otlp-trace-json.js";
import type { ProjectionName } from "../../exporters/otel/projection.js";
import { parseAtofLine } from "../events/atof-parse.js";
import { AtofPairingChecker } from "../events/atof-pairing.js";
import { atifTree } from "./atif-tree.js";
import { convertToAtif } from "./convert-atif.js";
import { detectViewInput } from "./viewer/load.js";
import { oneOf, parseArgs, PROJECTIONS, requireFiles, UsageError } from "./args.js";
import { CONVERT_HELP, TREE_HELP, VALIDATE_HELP } from "./help.js";
import { describeWriteError, type Io } from "./io.js";
import { describeReadError, detectKind, InputError, readJsonDocument } from "./input.js";
import { readablePath } from "./input-spool.js";
import { openOutput, type TextOutput } from "./output.js";
import { projectSpans } from "./span-stream.js";
import { jsonTextChunks } from "../events/json-text.js";
import type { Json } from "../events/json.js";
import { DEFAULT_MAX_LINE_BYTES, isCompleteJson, tornLastLineMessage } from "../events/atof-reader.js";
import { AtofParseError, type AtofWarning } from "../events/atof-errors.js";
import { readWarningLine } from "./read-warnings.js";
import { StreamingTree } from "./streaming-tree.js";
import { eventsInTimeOrder, type TimeOrderedReadOptions } from "./time-ordered-input.js";
import { splitFileLines } from "../events/line-splitter.js";

/** How the commands that merge files read them: progress, warnings by the one rule (see readWarningLine), `--lenient`. */
function timeOrderedOptions(io: Io, lenient: boolean): TimeOrderedReadOptions {
  return {
    lenient,
    onProgress: (file, lines) => io.progress(`reading ${file}: ${lines.toLocaleString("en-US")} lines`),
    onWarning: (file, w) => {
      const line = readWarningLine(file, w);
      if (line !== undefined) io.err(`relaytrace: warning: ${line}`);
    },
  };
}

/** `relaytrace convert FILE.jsonl... --to atif|otlp-json|tree [-o OUT]` */
export async function convert(
  io: Io,
  files: string[],
  to: "atif" | "otlp-json" | "tree",
  output: string | undefined,
  projection: ProjectionName,
  agentName: string | undefined,
  serviceName?: string,
  lenient = false,
): Promise<number> {
  for (const f of files) {
    const kind = await detectViewInput(f);
    if (kind !== "atof")
      throw new InputError(
        `${f} is ${kind === "atif" ? "an ATIF trajectory" : "an OTLP/JSON request"}, not an ATOF event log: ` +
          `convert reads ATOF (see it with 'relaytrace view ${f}')`,
      );
  }
  const file = files.join(", ");
  let eventCount = 0;
  let agentScopes = false;
  const read = timeOrderedOptions(io, lenient);
  // Trajectories are bounded by agent scopes when the input has any: known before the first event is mapped.
  if (to === "atif") read.beforeMerge = (e) => void (agentScopes ||= e.kind === "scope" && e.category === "agent");
  // Every file, in time order and in bounded memory (merged; another producer's unsorted file sorted externally).
  // Started before any output, so unreadable input leaves none.
  const source = await started(
    (async function* counted() {
      for await (const event of eventsInTimeOrder(files, read)) {
        eventCount++;
        yield event;
      }
    })(),
  );
  if (to === "atif") {
    return convertToAtif(io, source, {
      file,
      output,
      agentName,
      describeWriteError,
      eventCount: () => eventCount,
      boundaries: () => (agentScopes ? "agent" : "root"),
    });
  }
  const out = openOutput(io, output);
  let spanCount: number;
  try {
    if (to === "tree") {
      let trees = 0;
      spanCount = await printTree(
        source,
        projection,
        (text) => {
          trees++;
          out.write(`${text}\n`);
        },
        () => out.drained(),
        serviceName,
      );
      if (trees === 0) out.write("\n");
    } else {
      spanCount = await writeOtlpJson(out, source, projection, serviceName);
    }
  } finally {
    out.close();
  }
  if (output) io.err(`wrote ${output} (${eventCount} events in, ${spanCount} spans out)`);
  return 0;
}

/** The stream with its first item already read: what fails at the start of the input fails here. */
async function started<T>(stream: AsyncIterable<T>): Promise<AsyncIterable<T>> {
  const iterator = stream[Symbol.asyncIterator]();
  const first = await iterator.next();
  return (async function* rest() {
    if (first.done) return;
    yield first.value;
    for (let step = await iterator.next(); !step.done; step = await iterator.next()) yield step.value;
  })();
}

/** The span tree of time-ordered events, one root's tree at a time to `print` (see StreamingTree). */
async function printTree(
  events: AsyncIterable<AtofEvent>,
  projection: ProjectionName,
  print: (tree: string) => void,
  drained: () => Promise<void>,
  serviceName?: string,
): Promise<number> {
  const tree = new StreamingTree(print);
  const count = await projectSpans(
    tree.watch(events),
    projection,
    async (batch) => {
      tree.add(batch);
      await drained(); // the trees printed for this batch are taken before the next is read
    },
    serviceName === undefined ? {} : { serviceName },
  );
  tree.end();
  return count;
}

/**
 * One OTLP/JSON ExportTraceServiceRequest, written as the spans come out of the projection: each
 * batch adds its `resourceSpans` entries, so no step holds every span's JSON at once.
 */
async function writeOtlpJson(
  out: TextOutput,
  events: Iterable<AtofEvent> | AsyncIterable<AtofEvent>,
  projection: ProjectionName,
  serviceName?: string,
): Promise<number> {
  let entries = 0;
  out.write('{\n  "resourceSpans": [');
  const count = await projectSpans(
    events,
    projection,
    (spans) => {
      for (const entry of traceRequestJson(spans).resourceSpans as Json[]) {
        out.write(entries++ === 0 ? "\n    " : ",\n    ");
        for (const chunk of jsonTextChunks(entry, 2)) out.write(chunk.replace(/\n/g, "\n    "));
      }
      // This batch is taken by the reader before the next is read: a slow pipe holds the command, not its memory.
      return out.drained();
    },
    { serviceName },
  );
  out.write(entries > 0 ? "\n  ]\n}\n" : "]\n}\n");
  return count;
}

/** `relaytrace validate FILE`: ATIF or ATOF; every problem with its JSON path or line number. */
export async function validate(io: Io, file: string, lenient = false): Promise<number> {
  return (await detectKind(file)) === "atif" ? await validateAtifFile(io, file) : await validateAtofFile(io, file, lenient);
}

/** An ATIF document (or an array of them): every schema and cross-field problem, with its JSON path. */
async function validateAtifFile(io: Io, file: string): Promise<number> {
  const doc = await readJsonDocument(file);
  const docs = Array.isArray(doc) ? doc : [doc];
  let problems = 0;
  docs.forEach((d, i) => {
    const { errors } = validateAtif(d);
    for (const e of errors) {
      problems++;
      io.out(`${file}: ${docs.length > 1 ? `[${i}]` : ""}${e.path || "/"}: ${e.message}`);
    }
  });
  if (problems > 0) {
    io.err(`${file}: invalid ATIF (${problems} problem${problems === 1 ? "" : "s"})`);
    return 1;
  }
  const versions = docs.map((d) => (d as AtifTrajectory).schema_version).join(", ");
  const steps = docs.reduce((n, d) => n + ((d as AtifTrajectory).steps?.length ?? 0), 0);
  io.out(`${file}: valid ATIF (${versions}, ${steps} steps)`);
  return 0;
}

/** What checking one ATOF line found: whether it held an event, how many problems it had, whether it was skipped. */
interface AtofLineCheck {
  event: boolean;
  problems: number;
  skipped: boolean;
}

/** An ATOF event log, line by line: keeps going past a bad line so every problem is listed. */
async function validateAtofFile(io: Io, file: string, lenient: boolean): Promise<number> {
  const pairing = new AtofPairingChecker();
  let lineNo = 0;
  let events = 0;
  let problems = 0;
  try {
    for await (const line of splitFileLines(await readablePath(file), DEFAULT_MAX_LINE_BYTES)) {
      lineNo = line.lineNo;
      if (line.text === null) {
        throw new InputError(
          `${file}:${lineNo}: line is longer than ${DEFAULT_MAX_LINE_BYTES} bytes; not an ATOF file this reader can check`,
        );
      }
      const text = line.text.endsWith("\r") ? line.text.slice(0, -1) : line.text;
      if (text.trim() === "") continue;
      if (!line.terminated && !isCompleteJson(text)) {
        io.err(`relaytrace: warning: ${file}:${lineNo}: ${tornLastLineMessage(line.bytes)}`);
        continue;
      }
      const checked = checkAtofLine(io, file, lineNo, text, pairing, lenient);
      if (checked.event) events++;
      problems += checked.problems;
      if (checked.skipped) continue;
      if (lineNo % 50_000 === 0) io.progress(`validating ${file}: ${lineNo.toLocaleString("en-US")} lines`);
    }
  } catch (error) {
    if (error instanceof InputError) throw error;
    throw describeReadError(file, error);
  }
  if (problems > 0) {
    io.err(`${file}: invalid ATOF (${problems} problem${problems === 1 ? "" : "s"} in ${lineNo} lines)`);
    return 1;
  }
  if (events === 0) {
    io.err(`${file}: no events (an empty ATOF file)`);
    return 1;
  }
  io.out(`${file}: valid ATOF (${events} events)`);
  return 0;
}

/** One line of an ATOF log: parsed, paired with its start or end, its problems printed (as warnings with `--lenient`). */
function checkAtofLine(io: Io, file: string, lineNo: number, text: string, pairing: AtofPairingChecker, lenient: boolean): AtofLineCheck {
  let problems = 0;
  try {
    const findings: AtofWarning[] = [];
    const event = parseAtofLine(lineNo === 1 && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, lineNo, findings);
    pairing.check(event, lineNo);
    // What a reader only warns about (it keeps the event) is still not valid ATOF: a custom event needs its subtype.
    for (const finding of findings) {
      const reason =
        finding.code === "atof.custom_without_subtype"
          ? 'category "custom" without a string category_profile.subtype (ATOF requires one)'
          : finding.message;
      if (lenient) {
        io.err(`relaytrace: warning: ${file}:${lineNo}: ${reason}`);
      } else {
        problems++;
        io.out(`${file}:${lineNo}: ${reason}`);
      }
    }
    return { event: true, problems, skipped: false };
  } catch (error) {
    if (lenient && error instanceof AtofParseError) {
      io.err(`relaytrace: warning: ${file}:${lineNo}: skipped: ${error.reason}`);
      return { event: false, problems, skipped: true };
    }
    io.out(`${file}:${lineNo}: ${(error as Error).message}`);
    return { event: false, problems: problems + 1, skipped: false };
  }
}

/** `relaytrace tree FILE`: the span tree of an ATOF file, or the step tree of an ATIF file. */
export async function tree(io: Io, file: string, projection: ProjectionName, lenient = false): Promise<number> {
  const kind = await detectKind(file);
  if (kind === "atif") {
    const doc = await readJsonDocument(file);
    const docs = (Array.isArray(doc) ? doc : [doc]) as AtifTrajectory[];
    for (const d of docs) {
      if (!d || typeof d !== "object" || !Array.isArray(d.steps) || !d.agent) {
        throw new InputError(`${file}: not an ATIF trajectory (run 'relaytrace validate ${file}' for details)`);
      }
      io.out(atifTree(d).join("\n"));
    }
    return 0;
  }
  let trees = 0;
  await printTree(
    eventsInTimeOrder([file], timeOrderedOptions(io, lenient)),
    projection,
    (text) => {
      trees++;
      io.out(text);
    },
    () => io.drained?.() ?? Promise.resolve(),
  );
  if (trees === 0) io.out("(no spans: the file has no scope events)");
  return 0;
}

/** `relaytrace convert FILE.jsonl... --to atif|otlp-json|tree [-o OUT] [--projection P] …`: see CONVERT_HELP. */
export async function convertCommand(io: Io, argv: string[]): Promise<number> {
  const args = parseArgs(argv, {
    command: "convert",
    values: ["to", "output", "projection", "agent-name", "service-name"],
    switches: ["lenient"],
    aliases: { o: "output" },
  });
  if (args.switches.has("help")) return printHelp(io, CONVERT_HELP);
  const files = requireFiles(args.positionals, "convert");
  const to = args.values.get("to");
  if (to === undefined) throw new UsageError("convert needs --to atif|otlp-json|tree");
  const target = oneOf(to, ["atif", "otlp-json", "tree"] as const, "to", "atif");
  const projection: ProjectionName = oneOf(args.values.get("projection"), PROJECTIONS, "projection", "full");
  return await convert(
    io,
    files,
    target,
    args.values.get("output"),
    projection,
    args.values.get("agent-name"),
    args.values.get("service-name"),
    args.switches.has("lenient"),
  );
}

/** `relaytrace validate FILE... [--lenient]`: see VALIDATE_HELP. */
export async function validateCommand(io: Io, argv: string[]): Promise<number> {
  const args = parseArgs(argv, { command: "validate", switches: ["lenient"] });
  if (args.switches.has("help")) return printHelp(io, VALIDATE_HELP);
  let status = 0;
  for (const file of requireFiles(args.positionals, "validate"))
    status = Math.max(status, await validate(io, file, args.switches.has("lenient")));
  return status;
}

/** `relaytrace tree FILE... [--projection P] [--lenient]`: see TREE_HELP. */
export async function treeCommand(io: Io, argv: string[]): Promise<number> {
  const args = parseArgs(argv, { command: "tree", values: ["projection"], switches: ["lenient"] });
  if (args.switches.has("help")) return printHelp(io, TREE_HELP);
  const projection: ProjectionName = oneOf(args.values.get("projection"), PROJECTIONS, "projection", "full");
  for (const file of requireFiles(args.positionals, "tree")) await tree(io, file, projection, args.switches.has("lenient"));
  return 0;
}

function printHelp(io: Io, text: string): number {
  io.out(text);
  return 0;
}
