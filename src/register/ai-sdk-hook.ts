import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { relaytraceTelemetry } from "../integrations/ai-sdk/telemetry.js";

interface AiModule {
  registerTelemetry?: (...integrations: unknown[]) => void;
}

/**
 * Registers relaytrace's AI SDK telemetry integration with the `ai` package the app itself
 * resolves (from the working directory, not from relaytrace's own folder), when that is `ai` 7:
 * its `registerTelemetry` keeps the integrations process-wide, so the app's `generateText` calls
 * are traced into the default runtime. Returns whether it registered; an app without `ai` 7 is
 * left alone.
 */
export async function hookAiSdk(captureContent: boolean, directory = process.cwd()): Promise<boolean> {
  let entry: string;
  try {
    const require = createRequire(join(directory, "relaytrace-register.cjs"));
    const manifest = JSON.parse(readFileSync(require.resolve("ai/package.json"), "utf8")) as { version?: unknown };
    if (typeof manifest.version !== "string" || !manifest.version.startsWith("7.")) return false;
    entry = require.resolve("ai");
  } catch {
    return false; // no `ai` the app could import
  }
  const ai = (await import(pathToFileURL(entry).href)) as AiModule;
  if (typeof ai.registerTelemetry !== "function") return false;
  ai.registerTelemetry(relaytraceTelemetry({ captureContent }));
  return true;
}
