import { diag } from "@opentelemetry/api";
import { getNumberFromEnv, getStringFromEnv, parseKeyPairsIntoRecord } from "@opentelemetry/core";
import type * as Fs from "node:fs";
import type * as Http from "node:http";
import type * as Https from "node:https";
import type * as Path from "node:path";

// The settings of relaytrace's OTLP/HTTP span export in Node, merged as OpenTelemetry's exporters
// merge theirs (code, then the signal's `OTEL_EXPORTER_OTLP_TRACES_*` variable, then the general
// `OTEL_EXPORTER_OTLP_*` one, then the defaults), so that moving between them changes nothing.

/** Where the spans go: unset fields fall to the `OTEL_EXPORTER_OTLP_*` variables, then the defaults. */
export interface OtlpSpanExportConfig {
  url?: string;
  headers?: Record<string, string>;
  timeoutMillis?: number;
}

/** The merged settings of one OTLP/HTTP span export. */
export interface OtlpHttpSettings {
  url: string;
  /** Request headers: the variables', then code's, then the content type (always ours). */
  headers: Record<string, string>;
  timeoutMillis: number;
  compression: "gzip" | "none";
  /** Exports in flight at once; one more fails at once. */
  concurrencyLimit: number;
  /** The keep-alive agent for an `https:` URL, carrying the certificate variables' files. */
  httpsAgent: () => Promise<Http.Agent>;
}

const DEFAULT_TIMEOUT_MILLIS = 10000;
const DEFAULT_CONCURRENCY_LIMIT = 30;

/** A Node built-in module, without going through the ES-module loader where the runtime allows. */
export async function builtin<T>(name: string): Promise<T> {
  const runtime = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const module = runtime?.getBuiltinModule?.(name);
  return module !== undefined ? (module as T) : ((await import(name)) as T);
}

function timeoutFrom(variable: string): number | undefined {
  const value = getNumberFromEnv(variable);
  if (value === undefined) return undefined;
  if (Number.isFinite(value) && value > 0) return value;
  diag.warn(`Configuration: ${variable} is invalid, expected number greater than 0 (actual: ${value})`);
  return undefined;
}

function compressionFrom(variable: string): "gzip" | "none" | undefined {
  const value = getStringFromEnv(variable)?.trim();
  if (value === undefined || value === "none" || value === "gzip") return value;
  diag.warn(`Configuration: ${variable} is invalid, expected 'none' or 'gzip' (actual: '${value}')`);
  return undefined;
}

/** A URL from a variable, or undefined (with a warning that names the variable, not its value: it may carry credentials). */
function urlFrom(variable: string, path: string | undefined): string | undefined {
  let value = getStringFromEnv(variable);
  if (value === undefined) return undefined;
  if (path !== undefined) value = `${value.endsWith("/") ? value : `${value}/`}${path}`;
  try {
    return new URL(value).toString();
  } catch {
    diag.warn(`Configuration: could not parse the export URL in ${variable}, falling back to undefined`);
    return undefined;
  }
}

function headersFromEnv(): Record<string, string> {
  return {
    ...parseKeyPairsIntoRecord(getStringFromEnv("OTEL_EXPORTER_OTLP_HEADERS")),
    ...parseKeyPairsIntoRecord(getStringFromEnv("OTEL_EXPORTER_OTLP_TRACES_HEADERS")),
  };
}

function urlFromCode(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  try {
    return new URL(url, (globalThis as { location?: { href?: string } }).location?.href).href;
  } catch {
    throw new Error("Configuration: could not parse the export URL given in code");
  }
}

function positiveTimeout(value: number): number {
  if (Number.isFinite(value) && value > 0) return value;
  throw new Error(`Configuration: timeoutMillis is invalid, expected number greater than 0 (actual: '${value}')`);
}

/** A file named by a certificate variable (the signal's first), read when the first `https:` export starts. */
async function fileFrom(specific: string, general: string, what: string): Promise<Buffer | undefined> {
  const file = getStringFromEnv(specific) ?? getStringFromEnv(general);
  if (file === undefined) return undefined;
  const [fs, path] = await Promise.all([builtin<typeof Fs>("node:fs"), builtin<typeof Path>("node:path")]);
  try {
    return fs.readFileSync(path.resolve(process.cwd(), file));
  } catch {
    diag.warn(`Failed to read ${what} file`);
    return undefined;
  }
}

async function certificateAgent(): Promise<Http.Agent> {
  const [https, ca, cert, key] = await Promise.all([
    builtin<typeof Https>("node:https"),
    fileFrom("OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE", "OTEL_EXPORTER_OTLP_CERTIFICATE", "root certificate"),
    fileFrom("OTEL_EXPORTER_OTLP_TRACES_CLIENT_CERTIFICATE", "OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE", "client certificate chain"),
    fileFrom("OTEL_EXPORTER_OTLP_TRACES_CLIENT_KEY", "OTEL_EXPORTER_OTLP_CLIENT_KEY", "client certificate private key"),
  ]);
  return new https.Agent({ keepAlive: true, ca, cert, key });
}

/** The settings of a span export with `contentType`: code, then the variables, then the defaults. */
export function otlpHttpSettings(config: OtlpSpanExportConfig, contentType: string): OtlpHttpSettings {
  const headers: Record<string, string> = { ...headersFromEnv() };
  for (const [name, value] of Object.entries(config.headers ?? {})) {
    if (value !== undefined) headers[name] = String(value);
  }
  headers["Content-Type"] = contentType;
  return {
    url:
      urlFromCode(config.url) ??
      urlFrom("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", undefined) ??
      urlFrom("OTEL_EXPORTER_OTLP_ENDPOINT", "v1/traces") ??
      "http://localhost:4318/v1/traces",
    headers,
    timeoutMillis: positiveTimeout(
      config.timeoutMillis ??
        timeoutFrom("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT") ??
        timeoutFrom("OTEL_EXPORTER_OTLP_TIMEOUT") ??
        DEFAULT_TIMEOUT_MILLIS,
    ),
    compression: compressionFrom("OTEL_EXPORTER_OTLP_TRACES_COMPRESSION") ?? compressionFrom("OTEL_EXPORTER_OTLP_COMPRESSION") ?? "none",
    concurrencyLimit: DEFAULT_CONCURRENCY_LIMIT,
    httpsAgent: certificateAgent,
  };
}
