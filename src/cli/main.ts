#!/usr/bin/env node
import { once } from "node:events";
import { relative, resolve } from "node:path";
import { escapeControlCharactersInLines } from "../../exporters/testing/control-characters.js";
import { toTree } from "../../exporters/testing/tree.js";
import type { ProjectionName } from "../../exporters/otel/projection.js";
import { oneOf, parseArgs, unknownCommand, UsageError } from "./args.js";
import type { Io } from "./commands.js";
import { convert, PROJECTIONS, requireFiles, tree, validate } from "./commands.js";
import type { LiveProvider } from "./demo-scenario.js";
import { runDemo } from "./demo-scenario.js";
import { DIALECTS, type Dialect } from "../wire/index.js";

const STYLE_LABELS: Record<Dialect, string> = {
  openai: "OpenAI-compatible",
  "openai-responses": "OpenAI Responses",
  anthropic: "Anthropic Messages",
  gemini: "Gemini",
};
import { InputError } from "./input.js";
import { releaseInputCopies } from "./input-spool.js";
import { DIFF_HELP, diffCommand } from "./diff-command.js";
import { REPLAY_HELP, replayCommand } from "./replay-command.js";
import { SEND_HELP, sendCommand } from "./send-command.js";
import { packageVersion } from "./version.js";
import { VIEW_HELP, viewCommand, writeDemoView } from "./view-command.js";

const COMMANDS = ["demo", "convert", "validate", "tree", "view", "send", "replay", "diff"];

const HELP: Record<string, string> = {
  main: `relaytrace — tracing for LLM agents: ATOF event logs, ATIF trajectories, OpenTelemetry spans

Usage: relaytrace <command> [options]

Commands:
  demo       run a small traced agent on an embedded scripted model (no API key, no network)
  convert    convert an ATOF file to ATIF, OTLP JSON or a span tree
  validate   check an ATIF or ATOF file and list every problem
  tree       print the span tree of an ATOF file or the step tree of an ATIF file
  view       write a self-contained HTML trace viewer for ATOF, ATIF or OTLP/JSON files
  send       replay ATOF files to an OTLP collector
  replay     serve the model calls recorded in an ATOF file as a local model server
  diff       compare two recorded runs step by step (tool calls, results, output, status, usage)

A FILE may be - (standard input) or a pipe.
Run 'relaytrace <command> --help' for a command's options; 'relaytrace --version' for the version.`,
  view: VIEW_HELP,
  send: SEND_HELP,
  replay: REPLAY_HELP,
  diff: DIFF_HELP,
  demo: `Usage: relaytrace demo [--out DIR] [--otlp URL] [--projection full|openinference|gen_ai] [--style STYLE] [--live]

Runs a weather agent with a local tool (annotated result, pending marks from an intercept),
a relay tool the host answers, and an email-redaction sanitizer, against a scripted
OpenAI-compatible model started inside this process on 127.0.0.1.

Options:
  --out DIR          where the ATOF and ATIF files go (default ./relaytrace-out)
  --otlp URL         also send spans over OTLP/HTTP, e.g. http://localhost:4318/v1/traces
  --projection P     span flavour: full (default), openinference or gen_ai
  --style STYLE      the wire the model speaks: openai (default), openai-responses, anthropic or gemini
  --live             use a real provider: OPENAI_API_KEY or ANTHROPIC_API_KEY from the environment
  --base-url URL     with --live: the provider's base URL
  --model NAME       with --live: the model (default gpt-4.1-mini / claude-sonnet-4-5)`,
  convert: `Usage: relaytrace convert FILE.jsonl... --to atif|otlp-json|tree [-o OUT] [--projection P] [--agent-name NAME] [--service-name NAME] [--lenient]

Reads ATOF files (relaytrace's or another producer's; several are merged by time, unsorted ones
sorted through a temporary directory) and writes the chosen form to OUT or stdout, in bounded memory.
  --to atif        one ATIF v1.7 trajectory per run: to stdout or -o FILE for one run, one file per run with -o DIR
                   (agent name from the agent scope unless --agent-name)
  --to otlp-json   an OTLP/JSON ExportTraceServiceRequest (projection: --projection, default full)
  --to tree        the span tree
  --service-name N the OTLP resource's service.name (default: OTEL_SERVICE_NAME, else unknown_service)
  --lenient        skip bad lines with a warning instead of stopping (a torn last line is always
                   skipped, with a warning)`,
  validate: `Usage: relaytrace validate FILE... [--lenient]

Checks an ATIF document (JSON Schema for ATIF v1.7 plus its cross-field rules) or an ATOF event
log (every line, pairing of starts and ends). Prints each problem with its JSON path or line
number. A torn last line (a writer stopped mid-line) is a warning, not a problem; --lenient makes
bad lines warnings too. Exit status: 0 valid, 1 invalid, 2 unreadable input or bad arguments.`,
  tree: `Usage: relaytrace tree FILE... [--projection P] [--lenient]

Prints the span tree (names, kinds, status, durations) of an ATOF file, each root's tree as soon
as it is complete, or the step tree of an ATIF file. --lenient skips bad lines with a warning
(a torn last line is always skipped, with a warning).`,
};

function consoleIo(): Io {
  const tty = process.stderr.isTTY === true;
  // Progress only for work that runs long enough to wonder about.
  let last = Date.now();
  let shown = false;
  const clear = () => {
    if (shown && tty) process.stderr.write("\n");
    shown = false;
  };
  return {
    // Everything printed may carry names from a foreign file: control characters are escaped.
    out: (line) => {
      clear();
      process.stdout.write(`${escapeControlCharactersInLines(line)}\n`);
    },
    drained: () => (process.stdout.writableNeedDrain ? once(process.stdout, "drain").then(() => undefined) : Promise.resolve()),
    err: (line) => {
      clear();
      process.stderr.write(`${escapeControlCharactersInLines(line)}\n`);
    },
    progress: (line) => {
      const now = Date.now();
      if (now - last < (tty ? 500 : 2000)) return;
      last = now;
      if (tty) {
        process.stderr.write(`\r${escapeControlCharactersInLines(line)}`);
        shown = true;
      } else {
        process.stderr.write(`${escapeControlCharactersInLines(line)}\n`);
      }
    },
  };
}

const LIVE_DEFAULTS: Record<Dialect, { env: string[]; baseUrl: string; model: string }> = {
  openai: { env: ["OPENAI_API_KEY"], baseUrl: "https://api.openai.com/v1", model: "gpt-4.1-mini" },
  "openai-responses": { env: ["OPENAI_API_KEY"], baseUrl: "https://api.openai.com/v1", model: "gpt-4.1-mini" },
  anthropic: { env: ["ANTHROPIC_API_KEY"], baseUrl: "https://api.anthropic.com", model: "claude-sonnet-4-5" },
  gemini: { env: ["GEMINI_API_KEY", "GOOGLE_API_KEY"], baseUrl: "https://generativelanguage.googleapis.com", model: "gemini-2.5-flash" },
};

function liveProvider(baseUrl: string | undefined, model: string | undefined, style: Dialect | undefined): LiveProvider {
  if (style !== undefined) {
    const d = LIVE_DEFAULTS[style];
    const key = d.env.map((k) => process.env[k]).find((v) => v);
    if (!key) throw new UsageError(`--live --style ${style} needs ${d.env.join(" or ")} in the environment`);
    return { style, apiKey: key, baseUrl: baseUrl ?? d.baseUrl, model: model ?? d.model };
  }
  const anthropicKey = process.env.ANTHROPIC_API_KEY;
  const openaiKey = process.env.OPENAI_API_KEY;
  if (openaiKey) {
    return { style: "openai", apiKey: openaiKey, baseUrl: baseUrl ?? "https://api.openai.com/v1", model: model ?? "gpt-4.1-mini" };
  }
  if (anthropicKey) {
    return {
      style: "anthropic",
      apiKey: anthropicKey,
      baseUrl: baseUrl ?? "https://api.anthropic.com",
      model: model ?? "claude-sonnet-4-5",
    };
  }
  throw new UsageError("--live needs OPENAI_API_KEY or ANTHROPIC_API_KEY in the environment (or drop --live for the embedded model)");
}

async function demo(io: Io, argv: string[]): Promise<number> {
  const args = parseArgs(argv, {
    command: "demo",
    values: ["out", "otlp", "projection", "base-url", "model", "style"],
    switches: ["live"],
  });
  if (args.switches.has("help")) return help(io, "demo");
  if (args.positionals.length > 0) throw new UsageError(`demo takes no FILE (got ${args.positionals[0]})`);
  const projection = oneOf(args.values.get("projection"), PROJECTIONS, "projection", "full");
  const otlp = args.values.get("otlp");
  if (otlp !== undefined && !/^https?:\/\/.+/.test(otlp)) throw new UsageError(`--otlp must be an http(s) URL (got "${otlp}")`);
  const outDir = resolve(args.values.get("out") ?? "relaytrace-out");
  const rawStyle = args.values.get("style");
  const style = rawStyle === undefined ? undefined : oneOf(rawStyle, DIALECTS, "style", "openai");
  const live = args.switches.has("live") ? liveProvider(args.values.get("base-url"), args.values.get("model"), style) : undefined;

  const demoResult = await runDemo({
    outDir,
    projection,
    ...(otlp ? { otlp } : {}),
    ...(live ? { live } : {}),
    ...(style ? { style } : {}),
  });
  const { result } = demoResult;
  const shown = (p: string) => {
    const rel = relative(process.cwd(), p);
    return rel && !rel.startsWith("..") ? rel : p;
  };
  io.out(
    live
      ? `relaytrace demo — live ${live.style} model ${live.model}`
      : `relaytrace demo — scripted ${STYLE_LABELS[style ?? "openai"]} model at ${demoResult.providerUrl} (no API key, no network)`,
  );
  io.out("");
  io.out(`Run: ${result.status} in ${result.turns} turns, ${result.toolCalls.length} tool calls, ${result.usage.totalTokens} tokens`);
  io.out(`Answer: ${result.text}`);
  io.out("");
  io.out(`Spans (${projection} projection):`);
  io.out(toTree(demoResult.spans, { durations: true }));
  io.out("");
  io.out("Files:");
  io.out(`  ATOF  ${shown(demoResult.atofPath)}`);
  for (const [i, p] of demoResult.atifPaths.entries()) {
    const doc = demoResult.trajectories[i];
    io.out(`  ATIF  ${shown(p)}${doc ? ` (${doc.schema_version}, ${doc.steps.length} steps)` : ""}`);
  }
  const lost = demoResult.otlpProblems ?? [];
  if (otlp && lost.length === 0) io.out(`  OTLP  ${demoResult.spans.length} spans sent to ${otlp}; the collector accepted every export`);
  if (otlp && lost.length > 0)
    io.out(`  OTLP  spans sent to ${otlp} did NOT all arrive: ${lost.map((d) => `${d.code} ×${d.count} (${d.message})`).join("; ")}`);
  if (!live)
    io.out(
      "  The customer's email address is [REDACTED:email] in every exported event: sanitizers change telemetry, never the app's answer.",
    );
  const problems = demoResult.diagnostics.filter((d) => d.count > 0);
  if (problems.length > 0) {
    io.out("");
    io.out("Diagnostics (telemetry problems, counted; the run itself was not affected):");
    for (const d of problems) io.out(`  ${d.code} ×${d.count}: ${d.message}`);
  }
  const viewPath = await writeDemoView(demoResult.atofPath, demoResult.atifPaths, outDir);
  io.out("");
  io.out(
    `Next: npx relaytrace tree ${shown(demoResult.atofPath)}   ·   npx relaytrace validate ${shown(demoResult.atifPaths[0] ?? "FILE")}`,
  );
  io.out(`See the trace: open ${shown(viewPath)} in a browser (written by 'relaytrace view'; no server, no network)`);
  if (otlp && lost.length > 0) {
    io.err(`relaytrace demo: the OTLP export to ${otlp} failed`);
    return 1;
  }
  return 0;
}

function help(io: Io, topic: string): number {
  io.out(HELP[topic]!);
  return 0;
}

export async function main(argv: string[], io: Io = consoleIo()): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === undefined || command === "--help" || command === "-h" || command === "help") return help(io, "main");
    if (command === "--version" || command === "-V" || command === "version") {
      io.out(`relaytrace ${packageVersion()}`);
      return 0;
    }
    switch (command) {
      case "demo":
        return await demo(io, rest);
      case "convert": {
        const args = parseArgs(rest, {
          command: "convert",
          values: ["to", "output", "projection", "agent-name", "service-name"],
          switches: ["lenient"],
          aliases: { o: "output" },
        });
        if (args.switches.has("help")) return help(io, "convert");
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
      case "validate": {
        const args = parseArgs(rest, { command: "validate", switches: ["lenient"] });
        if (args.switches.has("help")) return help(io, "validate");
        let status = 0;
        for (const file of requireFiles(args.positionals, "validate"))
          status = Math.max(status, await validate(io, file, args.switches.has("lenient")));
        return status;
      }
      case "tree": {
        const args = parseArgs(rest, { command: "tree", values: ["projection"], switches: ["lenient"] });
        if (args.switches.has("help")) return help(io, "tree");
        const projection: ProjectionName = oneOf(args.values.get("projection"), PROJECTIONS, "projection", "full");
        for (const file of requireFiles(args.positionals, "tree")) await tree(io, file, projection, args.switches.has("lenient"));
        return 0;
      }
      case "view":
        return await viewCommand(io, rest);
      case "send":
        return await sendCommand(io, rest);
      case "replay":
        return await replayCommand(io, rest);
      case "diff":
        return await diffCommand(io, rest);
      default:
        if (command.startsWith("-")) throw new UsageError(`${unknownCommand(command, COMMANDS)} (an option goes after its command)`);
        throw new UsageError(unknownCommand(command, COMMANDS));
    }
  } catch (error) {
    if (error instanceof UsageError || error instanceof InputError) {
      io.err(`relaytrace: ${error.message}`);
      return 2;
    }
    io.err(`relaytrace: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    releaseInputCopies();
  }
}

// Run only as the program, not when imported by tests.
const invoked = process.argv[1] ? resolve(process.argv[1]) : "";
if (invoked.endsWith("/cli/main.js") || invoked.endsWith("/bin/relaytrace") || invoked.endsWith("/.bin/relaytrace")) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`relaytrace: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
