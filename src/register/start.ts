import { readFileSync } from "node:fs";
import { join } from "node:path";
import { AtifExporter } from "../../exporters/atif/index.js";
import { AtofExporter } from "../../exporters/atof/index.js";
import { OtelExporter } from "../../exporters/otel/index.js";
import { redactPII } from "../redact/index.js";
import { defaultRuntime } from "../runtime/default-runtime.js";
import type { Runtime } from "../runtime/runtime.js";
import { hookAiSdk } from "./ai-sdk-hook.js";
import { registerSettings } from "./environment.js";
import { flushOnSignals } from "./exit-signals.js";
import { withholdContentFrom } from "./withhold-content.js";

function warn(line: string): void {
  try {
    process.stderr.write(`${line}\n`);
  } catch {
    // stderr gone: nothing left to tell
  }
}

/** The agent an ATIF trajectory names: the app's package.json, else the working directory's name. */
function appAgent(directory: string): { name: string; version: string } {
  try {
    const manifest = JSON.parse(readFileSync(join(directory, "package.json"), "utf8")) as { name?: unknown; version?: unknown };
    return {
      name: typeof manifest.name === "string" && manifest.name !== "" ? manifest.name : "app",
      version: typeof manifest.version === "string" && manifest.version !== "" ? manifest.version : "0.0.0",
    };
  } catch {
    return { name: "app", version: "0.0.0" };
  }
}

/** Builds one exporter and registers it; a construction error (a bad OTEL_* value) is one line, never the app's failure. */
function attach(runtime: Runtime, what: string, build: () => { register(runtime: Runtime): unknown }): boolean {
  try {
    build().register(runtime);
    return true;
  } catch (error) {
    warn(`relaytrace: ${what} not set up: ${error instanceof Error ? error.message : String(error)}`);
    return false;
  }
}

/**
 * Sets up the process-wide runtime (`defaultRuntime()`) from the environment: the exporters, the
 * content switch and redaction the variables ask for, the AI SDK 7 hook, the flush on signals.
 * With nothing set it registers no exporter and prints nothing.
 */
export async function startFromEnvironment(env: Record<string, string | undefined> = process.env): Promise<Runtime> {
  const settings = registerSettings(env);
  for (const line of settings.problems) warn(line);
  const runtime = defaultRuntime();

  if (settings.redactPii) redactPII().register(runtime);
  if (!settings.captureContent) withholdContentFrom(runtime);

  let exporters = 0;
  const atofDirectory = settings.atofDirectory;
  if (atofDirectory !== undefined) {
    if (attach(runtime, "RELAYTRACE_ATOF_DIR", () => new AtofExporter({ type: "file", outputDirectory: atofDirectory }))) exporters++;
  }
  const atifDirectory = settings.atifDirectory;
  if (atifDirectory !== undefined) {
    const agent = appAgent(process.cwd());
    if (attach(runtime, "RELAYTRACE_ATIF_DIR", () => new AtifExporter({ outputDirectory: atifDirectory, agent }))) exporters++;
  }
  if (settings.otel) {
    const options = settings.captureContent
      ? { projection: settings.projection }
      : { projection: settings.projection, captureContent: false };
    if (attach(runtime, "the OpenTelemetry exporter", () => new OtelExporter(options))) exporters++;
  }
  if (exporters > 0) flushOnSignals(runtime);

  try {
    await hookAiSdk(settings.captureContent);
  } catch (error) {
    warn(`relaytrace: the AI SDK telemetry integration not registered: ${error instanceof Error ? error.message : String(error)}`);
  }
  return runtime;
}
