import { relative, resolve } from "node:path";
import { toTree } from "../../exporters/testing/tree.js";
import { oneOf, parseArgs, PROJECTIONS, UsageError } from "./args.js";
import { runDemo, type DemoOptions, type DemoResult, type LiveProvider } from "./demo-scenario.js";
import { DEMO_HELP } from "./help.js";
import type { Io } from "./io.js";
import { writeDemoView } from "./view-command.js";
import { DIALECTS, type Dialect } from "../wire/index.js";

const STYLE_LABELS: Record<Dialect, string> = {
  openai: "OpenAI-compatible",
  "openai-responses": "OpenAI Responses",
  anthropic: "Anthropic Messages",
  gemini: "Gemini",
};

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

/** `relaytrace demo`: the flags as DemoOptions (the live provider from the environment), or `help`. */
function demoOptions(argv: string[]): DemoOptions | "help" {
  const args = parseArgs(argv, {
    command: "demo",
    values: ["out", "otlp", "projection", "base-url", "model", "style"],
    switches: ["live"],
  });
  if (args.switches.has("help")) return "help";
  if (args.positionals.length > 0) throw new UsageError(`demo takes no FILE (got ${args.positionals[0]})`);
  const projection = oneOf(args.values.get("projection"), PROJECTIONS, "projection", "full");
  const otlp = args.values.get("otlp");
  if (otlp !== undefined && !/^https?:\/\/.+/.test(otlp)) throw new UsageError(`--otlp must be an http(s) URL (got "${otlp}")`);
  const outDir = resolve(args.values.get("out") ?? "relaytrace-out");
  const rawStyle = args.values.get("style");
  const style = rawStyle === undefined ? undefined : oneOf(rawStyle, DIALECTS, "style", "openai");
  const live = args.switches.has("live") ? liveProvider(args.values.get("base-url"), args.values.get("model"), style) : undefined;
  return {
    outDir,
    projection,
    ...(otlp ? { otlp } : {}),
    ...(live ? { live } : {}),
    ...(style ? { style } : {}),
  };
}

/** A path relative to the working directory when it lies below it. */
function shown(p: string): string {
  const rel = relative(process.cwd(), p);
  return rel && !rel.startsWith("..") ? rel : p;
}

/** The run, its span tree and the files written. */
function printRun(io: Io, options: DemoOptions, demoResult: DemoResult): void {
  const { result } = demoResult;
  const { live, style } = options;
  io.out(
    live
      ? `relaytrace demo — live ${live.style} model ${live.model}`
      : `relaytrace demo — scripted ${STYLE_LABELS[style ?? "openai"]} model at ${demoResult.providerUrl} (no API key, no network)`,
  );
  io.out("");
  io.out(`Run: ${result.status} in ${result.turns} turns, ${result.toolCalls.length} tool calls, ${result.usage.totalTokens} tokens`);
  io.out(`Answer: ${result.text}`);
  io.out("");
  io.out(`Spans (${options.projection} projection):`);
  io.out(toTree(demoResult.spans, { durations: true }));
  io.out("");
  io.out("Files:");
  io.out(`  ATOF  ${shown(demoResult.atofPath)}`);
  for (const [i, p] of demoResult.atifPaths.entries()) {
    const doc = demoResult.trajectories[i];
    io.out(`  ATIF  ${shown(p)}${doc ? ` (${doc.schema_version}, ${doc.steps.length} steps)` : ""}`);
  }
}

/** Whether the spans reached the collector, the redaction note and the telemetry problems. */
function printOutcome(io: Io, options: DemoOptions, demoResult: DemoResult): void {
  const { otlp, live } = options;
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
}

/** `relaytrace demo [--out DIR] [--otlp URL] [--projection P] [--style STYLE] [--live]`: see DEMO_HELP. */
export async function demoCommand(io: Io, argv: string[]): Promise<number> {
  const options = demoOptions(argv);
  if (options === "help") {
    io.out(DEMO_HELP);
    return 0;
  }
  const demoResult = await runDemo(options);
  printRun(io, options, demoResult);
  printOutcome(io, options, demoResult);
  const viewPath = await writeDemoView(demoResult.atofPath, demoResult.atifPaths, options.outDir);
  io.out("");
  io.out(
    `Next: npx relaytrace tree ${shown(demoResult.atofPath)}   ·   npx relaytrace validate ${shown(demoResult.atifPaths[0] ?? "FILE")}`,
  );
  io.out(`See the trace: open ${shown(viewPath)} in a browser (written by 'relaytrace view'; no server, no network)`);
  const lost = demoResult.otlpProblems ?? [];
  if (options.otlp && lost.length > 0) {
    io.err(`relaytrace demo: the OTLP export to ${options.otlp} failed`);
    return 1;
  }
  return 0;
}
