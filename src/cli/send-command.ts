import { basename } from "node:path";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import { request } from "undici";
import { encodeTraceRequestJson } from "../../exporters/otel/otlp-trace-json.js";
import { encodeTraceRequest } from "../../exporters/otel/otlp-trace-protobuf.js";
import { decodeTraceResponse } from "../../exporters/otel/otlp-trace-response.js";
import type { ProjectionName } from "../../exporters/otel/projection.js";
import { oneOf, parseArgs, PROJECTIONS, requireFiles, UsageError } from "./args.js";
import type { AtofEvent } from "../events/types.js";
import { atofFileEvents } from "./atof-file-reader.js";
import { projectSpans } from "./span-stream.js";
import type { Io } from "./io.js";
import { byteProgress } from "./progress.js";

export const SEND_HELP =
  "Usage: relaytrace send FILE... --otlp URL [--projection P] [--protocol http/json|http/protobuf] [--service-name NAME]\n" +
  `                       [--lenient] [--request-timeout MS] [--max-answer-bytes N]

Replays ATOF files to an OpenTelemetry collector over OTLP/HTTP, in the order given, as the
spans they project to. Reading waits for the collector (bounded memory for any file size);
every span is sent, spans left open are ended as errors. Exit status 1 when any span was not
accepted (refused, partially rejected or unreachable), 2 on bad arguments or input.
  --otlp URL           the collector's traces endpoint; a bare http://host:4318 gets /v1/traces
  --projection P       full (default), openinference or gen_ai
  --protocol P         http/json (default) or http/protobuf
  --service-name NAME  the spans' service.name (default relaytrace)
  --lenient            skip bad lines with a warning instead of stopping (a torn last line is
                       always skipped, with a warning)
  --request-timeout MS the most one request may take, answer included (default 30000); a request
                       that takes longer is abandoned: retried if no status came, else its spans
                       count as accepted and the unread answer is reported
  --max-answer-bytes N the most read of a collector's answer (default 1048576); a longer answer is
                       not read further, and reported
Headers (e.g. authorization) come from OTEL_EXPORTER_OTLP_HEADERS (k=v,k=v); they are never printed.`;

const PROTOCOLS = ["http/json", "http/protobuf"] as const;
type Protocol = (typeof PROTOCOLS)[number];
const RETRYABLE = new Set([408, 429, 502, 503, 504]);
const ATTEMPTS = 5;
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_ANSWER_BYTES = 1024 * 1024;

/** Bounds on one request: how long it may take and how much of the answer is read. */
export interface RequestBounds {
  timeoutMs: number;
  maxAnswerBytes: number;
}

export interface SendOutcome {
  sent: number;
  accepted: number;
  rejected: number;
  /** Why spans were refused, one line per distinct reason. */
  reasons: string[];
  /** Answers accepted but not read whole (too long, too slow), one line per distinct note. */
  notes: string[];
}

type AnswerBody = AsyncIterable<Uint8Array> & { destroy(): unknown; on?(event: "error", listener: () => void): unknown };

/** Drops an answer unread: the "request aborted" error the stream then emits is expected, never a crash. */
function discard(body: AnswerBody): void {
  body.on?.("error", () => undefined);
  body.destroy();
}

/**
 * The answer's bytes, read until `maxBytes` or the request's deadline: `partial` says why it
 * stopped early (the rest is discarded, the connection closed), so no answer is held whole or
 * waited on without end.
 */
async function readAnswer(
  body: AnswerBody,
  bounds: RequestBounds,
  deadline: AbortSignal,
): Promise<{ bytes: Uint8Array; partial?: string }> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      if (size + chunk.length > bounds.maxAnswerBytes) {
        discard(body);
        return { bytes: new Uint8Array(0), partial: `longer than ${bounds.maxAnswerBytes} bytes` };
      }
      chunks.push(chunk);
      size += chunk.length;
    }
  } catch (error) {
    discard(body);
    if (deadline.aborted) return { bytes: new Uint8Array(0), partial: `not finished within ${bounds.timeoutMs} ms` };
    throw error;
  }
  return { bytes: Buffer.concat(chunks) };
}

/** The traces endpoint of a collector URL (a bare origin gets `/v1/traces`). */
export function tracesEndpoint(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--otlp must be an http(s) URL (got "${value}")`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new UsageError(`--otlp must be an http(s) URL (got "${value}")`);
  if (url.pathname === "" || url.pathname === "/") url.pathname = "/v1/traces";
  return url;
}

/** A URL as it may be printed: no user, password or query (they can hold credentials). */
function shownUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}

function headersFromEnv(): Record<string, string> {
  const raw = process.env["OTEL_EXPORTER_OTLP_TRACES_HEADERS"] ?? process.env["OTEL_EXPORTER_OTLP_HEADERS"] ?? "";
  const headers: Record<string, string> = {};
  for (const pair of raw.split(",")) {
    const eq = pair.indexOf("=");
    if (eq <= 0) continue;
    headers[decodeURIComponent(pair.slice(0, eq).trim()).toLowerCase()] = decodeURIComponent(pair.slice(eq + 1).trim());
  }
  return headers;
}

function rejectedOf(protocol: Protocol, body: Uint8Array): { rejected: number; message?: string } {
  if (body.length === 0) return { rejected: 0 };
  try {
    if (protocol === "http/json") {
      const parsed = JSON.parse(Buffer.from(body).toString("utf8")) as {
        partialSuccess?: { rejectedSpans?: number | string; errorMessage?: string };
      };
      const partial = parsed.partialSuccess;
      return { rejected: Number(partial?.rejectedSpans ?? 0), ...(partial?.errorMessage ? { message: partial.errorMessage } : {}) };
    }
    const partial = decodeTraceResponse(body).partialSuccess;
    return { rejected: Number(partial?.rejectedSpans ?? 0), ...(partial?.errorMessage ? { message: partial.errorMessage } : {}) };
  } catch {
    return { rejected: 0 };
  }
}

/** Posts one batch, retrying what a collector may accept later; returns how many it refused. */
async function post(
  url: URL,
  protocol: Protocol,
  headers: Record<string, string>,
  spans: ReadableSpan[],
  bounds: RequestBounds,
): Promise<{ rejected: number; reason?: string; note?: string }> {
  const body = protocol === "http/json" ? encodeTraceRequestJson(spans) : encodeTraceRequest(spans);
  const contentType = protocol === "http/json" ? "application/json" : "application/x-protobuf";
  let last = "";
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    // One deadline for the whole request: undici's own timeouts restart with every byte received.
    const deadline = AbortSignal.timeout(bounds.timeoutMs);
    try {
      const response = await request(url, {
        method: "POST",
        body,
        headers: { ...headers, "content-type": contentType },
        headersTimeout: bounds.timeoutMs,
        bodyTimeout: bounds.timeoutMs,
        signal: deadline,
      });
      if (response.statusCode >= 200 && response.statusCode < 300) {
        const { bytes, partial } = await readAnswer(response.body, bounds, deadline);
        if (partial !== undefined) return { rejected: 0, note: `an answer of the collector was ${partial}: not read further` };
        const { rejected, message } = rejectedOf(protocol, bytes);
        return rejected > 0
          ? { rejected: Math.min(rejected, spans.length), reason: `the collector rejected spans${message ? `: ${message}` : ""}` }
          : { rejected: 0 };
      }
      discard(response.body); // only the status matters: the answer is not read
      last = `HTTP ${response.statusCode}`;
      if (!RETRYABLE.has(response.statusCode)) return { rejected: spans.length, reason: `the collector answered ${last}` };
    } catch (error) {
      last = deadline.aborted
        ? `no answer within ${bounds.timeoutMs} ms`
        : ((error as NodeJS.ErrnoException).code ?? (error as Error).message);
    }
    if (attempt < ATTEMPTS) await new Promise((r) => setTimeout(r, 100 * 2 ** attempt));
  }
  return { rejected: spans.length, reason: `the collector could not be reached (${last}, ${ATTEMPTS} attempts)` };
}

/** The files' events in the order given, each file's read reported as byte progress. */
async function* eventsOf(io: Io, files: readonly string[], lenient: boolean): AsyncGenerator<AtofEvent> {
  for (const file of files) {
    yield* atofFileEvents(file, {
      lenient,
      onBytes: byteProgress(io, `sending ${basename(file)}`),
      onWarning: (m) => io.err(`relaytrace: warning: ${m}`),
    });
  }
}

/**
 * Streams the files' spans to the collector, one batch at a time: the projection's next events
 * wait until the collector answered the batch before (bounded memory for any file size).
 */
export async function sendFiles(
  io: Io,
  files: readonly string[],
  options: {
    url: URL;
    projection: ProjectionName;
    protocol: Protocol;
    serviceName: string;
    lenient: boolean;
    bounds?: RequestBounds;
  },
): Promise<SendOutcome> {
  const headers = headersFromEnv();
  const bounds = options.bounds ?? { timeoutMs: DEFAULT_REQUEST_TIMEOUT_MS, maxAnswerBytes: DEFAULT_MAX_ANSWER_BYTES };
  const outcome: SendOutcome = { sent: 0, accepted: 0, rejected: 0, reasons: [], notes: [] };
  const send = async (spans: ReadableSpan[]): Promise<void> => {
    const { rejected, reason, note } = await post(options.url, options.protocol, headers, spans, bounds);
    if (note && !outcome.notes.includes(note)) outcome.notes.push(note);
    outcome.sent += spans.length;
    outcome.rejected += rejected;
    outcome.accepted += spans.length - rejected;
    if (reason && !outcome.reasons.includes(reason)) outcome.reasons.push(reason);
  };
  await projectSpans(eventsOf(io, files, options.lenient), options.projection, send, { serviceName: options.serviceName });
  return outcome;
}

function positiveInteger(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n <= 0) {
    throw new UsageError(`--${flag} must be a positive whole number (got "${value}")`);
  }
  return n;
}

/** `relaytrace send FILE... --otlp URL [--projection P] [--protocol …] [--service-name NAME] [--lenient] [bounds]`: see SEND_HELP. */
export async function sendCommand(io: Io, argv: string[]): Promise<number> {
  const args = parseArgs(argv, {
    command: "send",
    values: ["otlp", "projection", "protocol", "service-name", "request-timeout", "max-answer-bytes"],
    switches: ["lenient"],
  });
  if (args.switches.has("help")) {
    io.out(SEND_HELP);
    return 0;
  }
  const files = requireFiles(args.positionals, "send");
  const otlp = args.values.get("otlp");
  if (otlp === undefined) throw new UsageError("send needs --otlp URL (e.g. http://localhost:4318/v1/traces)");
  const url = tracesEndpoint(otlp);
  const projection = oneOf(args.values.get("projection"), PROJECTIONS, "projection", "full");
  const protocol = oneOf(args.values.get("protocol"), PROTOCOLS, "protocol", "http/json");
  const serviceName = args.values.get("service-name") ?? "relaytrace";
  const bounds: RequestBounds = {
    timeoutMs: positiveInteger(args.values.get("request-timeout"), "request-timeout", DEFAULT_REQUEST_TIMEOUT_MS),
    maxAnswerBytes: positiveInteger(args.values.get("max-answer-bytes"), "max-answer-bytes", DEFAULT_MAX_ANSWER_BYTES),
  };
  const outcome = await sendFiles(io, files, { url, projection, protocol, serviceName, lenient: args.switches.has("lenient"), bounds });
  for (const note of outcome.notes) io.err(`relaytrace: warning: ${note}`);
  const accepted = outcome.accepted.toLocaleString("en-US");
  const summary = `sent ${outcome.sent.toLocaleString("en-US")} spans to ${shownUrl(url)}: ${accepted} accepted`;
  if (outcome.rejected === 0) {
    io.err(summary);
    return 0;
  }
  io.err(`${summary}, ${outcome.rejected.toLocaleString("en-US")} NOT accepted`);
  for (const reason of outcome.reasons) io.err(`  ${reason}`);
  return 1;
}
