/**
 * What `relaytrace/register` reads from the environment. Every value is checked here; a bad one
 * becomes one line for stderr (naming the variable and what it accepts) and a safe choice, so the
 * app still runs.
 */

type Env = Record<string, string | undefined>;

export type RegisterProjection = "openinference" | "gen_ai" | "full";

export interface RegisterSettings {
  /** `RELAYTRACE_ATOF_DIR`: where an ATOF file exporter writes. */
  atofDirectory: string | undefined;
  /** `RELAYTRACE_ATIF_DIR`: where an ATIF exporter writes. */
  atifDirectory: string | undefined;
  /** Whether an OtelExporter is asked for: `OTEL_TRACES_EXPORTER=otlp` or an `OTEL_EXPORTER_OTLP_*ENDPOINT`. */
  otel: boolean;
  /** `RELAYTRACE_OTEL_PROJECTION`, default `openinference`. */
  projection: RegisterProjection;
  /** `RELAYTRACE_CAPTURE_CONTENT`, default true. */
  captureContent: boolean;
  /** `RELAYTRACE_REDACT=pii`. */
  redactPii: boolean;
  /** One line per bad value. */
  problems: string[];
}

const PROJECTIONS: readonly RegisterProjection[] = ["openinference", "gen_ai", "full"];
const OTLP_ENDPOINTS = ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"];

function read(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === "" ? undefined : value;
}

function badValue(name: string, value: string, accepts: string, instead: string): string {
  return `relaytrace: ${name}=${JSON.stringify(value)} is not accepted (use ${accepts}); ${instead}`;
}

/** Reads the settings; never throws. */
export function registerSettings(env: Env = process.env): RegisterSettings {
  const problems: string[] = [];

  const projectionValue = read(env, "RELAYTRACE_OTEL_PROJECTION");
  let projection: RegisterProjection = "openinference";
  if (projectionValue !== undefined) {
    const wanted = projectionValue.toLowerCase() as RegisterProjection;
    if (PROJECTIONS.includes(wanted)) projection = wanted;
    else problems.push(badValue("RELAYTRACE_OTEL_PROJECTION", projectionValue, PROJECTIONS.join(", "), "using openinference"));
  }

  // A value that is neither true nor false withholds content: a typo never sends what was meant to stay.
  const contentValue = read(env, "RELAYTRACE_CAPTURE_CONTENT");
  let captureContent = true;
  if (contentValue !== undefined) {
    const lower = contentValue.toLowerCase();
    if (lower === "false") captureContent = false;
    else if (lower !== "true") {
      captureContent = false;
      problems.push(badValue("RELAYTRACE_CAPTURE_CONTENT", contentValue, "true or false", "content is withheld"));
    }
  }

  // Likewise an unknown redaction still redacts.
  const redactValue = read(env, "RELAYTRACE_REDACT");
  let redactPii = false;
  if (redactValue !== undefined) {
    redactPii = true;
    if (redactValue.toLowerCase() !== "pii") problems.push(badValue("RELAYTRACE_REDACT", redactValue, "pii", "redacting pii"));
  }

  const tracesExporter = read(env, "OTEL_TRACES_EXPORTER");
  const otel =
    (tracesExporter !== undefined &&
      tracesExporter
        .split(",")
        .map((v) => v.trim().toLowerCase())
        .includes("otlp")) ||
    OTLP_ENDPOINTS.some((name) => read(env, name) !== undefined);

  return {
    atofDirectory: read(env, "RELAYTRACE_ATOF_DIR"),
    atifDirectory: read(env, "RELAYTRACE_ATIF_DIR"),
    otel,
    projection,
    captureContent,
    redactPii,
    problems,
  };
}
