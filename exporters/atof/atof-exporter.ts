import type { Exporter } from "../../src/runtime/exporter.js";
import { ExporterRegistrations, type ExporterRuntime } from "../exporter-runtime.js";
import { resolve } from "node:path";
import { serializeEventPieces } from "../../src/events/atof-serialize.js";
import type { AtofEvent } from "../../src/events/types.js";
import { ATOF_LINES, type LineSubscriber } from "../../src/events/atof-lines.js";
import { DiagnosticCounter, type Diagnostic } from "../../src/wire/diagnostics.js";
import { FileSink } from "./file-sink.js";
import { LineBuffer, type AtofLine } from "./line-buffer.js";
import { refuseLinkedDirectory } from "../files/linked-directory.js";
import type { AtofExporterOptions, AtofFileOptions, AtofStreamOptions } from "./options.js";
import type { AtofSink } from "./sink.js";
import { StreamSink } from "./stream-sink.js";
import { RotatedFileSet, type AtofRotateOptions, type Clock } from "./rotation.js";
import { lineWithin } from "./oversized-event.js";
import { DEFAULT_MAX_LINE_BYTES } from "../../src/events/atof-reader.js";
import { checkOptionKeys } from "../../src/events/option-keys.js";
import { check, declareOptions, describeValue, is } from "../../src/events/option-spec.js";
import { requireHttpUrl } from "../http-url.js";

/** The part of a runtime the exporter needs (see ExporterRuntime). */
export type AtofSubscribable = ExporterRuntime;

let filesNamed = 0;

/** `relaytrace-atof-20260301T120000Z-<pid>.jsonl`; a second default name in one process gets a counter. */
function defaultFileName(): string {
  const stamp = new Date()
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
  filesNamed += 1;
  const suffix = filesNamed > 1 ? `-${filesNamed}` : "";
  return `relaytrace-atof-${stamp}-${process.pid}${suffix}.jsonl`;
}

const OWNER = "AtofExporter";
const count = is.numberAtLeast(0);
/** `rotate`, a nested bag: its keys are named `rotate.<key>` in messages. */
const ROTATE_OPTIONS = declareOptions<AtofRotateOptions>(
  OWNER,
  {
    maxBytes: is.positiveInteger,
    maxAgeMs: check("a positive finite number", (v) => typeof v === "number" && Number.isFinite(v) && v > 0),
    keep: check("a non-negative integer", (v) => Number.isInteger(v) && (v as number) >= 0),
  },
  { prefix: "rotate." },
);
/** The file sink's options, declared once: the key list, type checks and messages derive from it. */
const FILE_OPTIONS = declareOptions<AtofFileOptions>(
  OWNER,
  {
    type: is.oneOf("file"),
    maxBufferedLines: count,
    maxBufferedBytes: count,
    path: is.string,
    outputDirectory: is.string,
    mode: is.oneOf("append", "overwrite"),
    followSymlinks: is.boolean,
    rotate: is.nested(ROTATE_OPTIONS),
  },
  { context: " for a file sink" },
);
/** The stream sink's options (its `url` is parsed where it is used, with its own messages). */
const STREAM_OPTIONS = declareOptions<AtofStreamOptions>(
  OWNER,
  {
    type: is.oneOf("stream"),
    maxBufferedLines: count,
    maxBufferedBytes: count,
    url: is.required(check("an absolute http(s) URL", (v) => typeof v === "string")),
    headers: is.stringRecord,
    timeoutMillis: count,
    maxRetries: count,
    retryBaseMillis: count,
    maxBatchLines: count,
    flushIntervalMillis: count,
  },
  { context: " for a stream sink" },
);

/** Checks the options against the declaration of their sink `type`; a bad `type` names both sinks' keys. */
function checkAtofOptions(options: AtofExporterOptions): void {
  const type = (options as { type?: unknown } | null)?.type;
  if (type === "file") {
    FILE_OPTIONS.check(options);
    const { mode, rotate } = options as AtofFileOptions;
    if (rotate !== undefined && mode === "overwrite") {
      throw new TypeError(`${OWNER}: mode must be "append" when rotate is set (got "overwrite"): every rotated file is a new file`);
    }
    return;
  }
  if (type === "stream") return STREAM_OPTIONS.check(options);
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new TypeError(`${OWNER}: options must be an object (got ${describeValue(options)})`);
  }
  checkOptionKeys(OWNER, options, new Set([...FILE_OPTIONS.keys, ...STREAM_OPTIONS.keys]));
  throw new TypeError(`${OWNER}: type must be "file" or "stream" (got ${describeValue(type)})`);
}

/** A declared count or its default. */
const orDefault = (value: number | undefined, fallback: number): number => value ?? fallback;

/** The stem of a rotated set's file names when no `path` is given: `relaytrace-atof.<UTC start>.jsonl`. */
const ROTATED_DEFAULT_NAME = "relaytrace-atof.jsonl";

function buildFileSink(options: AtofFileOptions, buffer: LineBuffer, diagnostics: DiagnosticCounter, clock: Clock): FileSink {
  const mode = options.mode ?? "append";
  const given = options.outputDirectory;
  const directory = resolve(given ?? process.cwd());
  const rotate = options.rotate;
  const filePath = resolve(directory, options.path ?? (rotate ? ROTATED_DEFAULT_NAME : defaultFileName()));
  const followSymlinks = options.followSymlinks ?? false;
  if (given !== undefined) refuseLinkedDirectory(OWNER, directory, followSymlinks);
  const rotation = rotate ? new RotatedFileSet(filePath, { ...rotate }, clock) : undefined;
  return new FileSink(
    filePath,
    { mode, followSymlinks, maxLineBytes: DEFAULT_MAX_LINE_BYTES, ...(rotation ? { rotation } : {}) },
    buffer,
    diagnostics,
    OWNER,
  );
}

/** What only tests set: the clock rotation reads (default `Date.now`). */
export interface AtofExporterInternals {
  now?: Clock;
}

function buildStreamSink(options: AtofStreamOptions, buffer: LineBuffer, diagnostics: DiagnosticCounter): StreamSink {
  const url = requireHttpUrl(OWNER, "url", options.url);
  return new StreamSink(
    {
      url: url.toString(),
      headers: options.headers ?? {},
      timeoutMillis: orDefault(options.timeoutMillis, 10_000),
      maxRetries: Math.floor(orDefault(options.maxRetries, 3)),
      retryBaseMillis: orDefault(options.retryBaseMillis, 200),
      maxBatchLines: Math.max(1, Math.floor(orDefault(options.maxBatchLines, 1000))),
      flushIntervalMillis: orDefault(options.flushIntervalMillis, 100),
    },
    buffer,
    diagnostics,
  );
}

/**
 * Writes every event verbatim as ATOF JSONL, to a file or to an HTTP receiver. Delivery only
 * serializes and buffers; I/O happens in batches. Failures are counted in `diagnostics()`, never thrown.
 */
export class AtofExporter implements Exporter {
  private readonly registrations = new ExporterRegistrations("atof");
  private readonly sink: AtofSink;
  private readonly fileSink: FileSink | undefined;
  /**
   * Longest line written whole: a file takes any line the readers accept (the buffer is written
   * out first to make room); a receiver gets at most one buffer's worth. Past it, the payload is
   * replaced by a marker (see lineWithin): the event itself is never lost for its size.
   */
  private readonly maxLineBytes: number;
  private readonly counter = new DiagnosticCounter();
  private shutdownPromise: Promise<void> | null = null;

  /**
   * Throws a `TypeError` naming the option on a configuration mistake (unknown key, bad `mode`, a
   * stream without an http(s) `url`), and an `Error` when another file sink of this process already
   * writes the same file or the path is a symbolic link (without `followSymlinks: true`).
   */
  constructor(options: AtofExporterOptions, internals: AtofExporterInternals = {}) {
    checkAtofOptions(options);
    const maxBufferedBytes = Math.max(1, orDefault(options.maxBufferedBytes, 16 * 1024 * 1024));
    const buffer = new LineBuffer(Math.max(1, Math.floor(orDefault(options.maxBufferedLines, 10_000))), maxBufferedBytes);
    this.maxLineBytes = options.type === "file" ? DEFAULT_MAX_LINE_BYTES : Math.min(maxBufferedBytes, DEFAULT_MAX_LINE_BYTES);
    if (options.type === "file") {
      const sink = buildFileSink(options, buffer, this.counter, internals.now ?? Date.now);
      this.sink = sink;
      this.fileSink = sink;
    } else {
      this.sink = buildStreamSink(options, buffer, this.counter);
      this.fileSink = undefined;
    }
  }

  /** The resolved path of the file written now (file sink only; with `rotate`, the newest file of the set). */
  get filePath(): string | undefined {
    return this.fileSink?.filePath;
  }

  /**
   * Subscribes to the runtime under a name unique to this instance (`atof#N`), so several ATOF
   * exporters can share a runtime; `runtime.flush()`/`shutdown()` then reach this exporter too.
   * Returns the remover.
   */
  register(runtime: AtofSubscribable): () => boolean {
    const subscriber: LineSubscriber = (event) => this.onEvent(event);
    // The runtime may hand over the line it serialized on the emitting call instead of the event.
    subscriber[ATOF_LINES] = (line, event) => this.onLine(line, event);
    return this.registrations.register(runtime, subscriber, this);
  }

  /** Serializes and buffers one event (the subscriber callback; also usable directly). */
  onEvent(event: AtofEvent): void {
    if (this.shutdownPromise !== null) {
      this.counter.record("atof.events_dropped", "event delivered after shutdown");
      return;
    }
    let line: AtofLine;
    try {
      line = serializeEventPieces(event);
    } catch (err) {
      this.counter.record("atof.serialize_failed", `event ${String(event?.uuid)}: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    this.buffer(event, line);
  }

  /** Buffers the line the runtime serialized `event` to. */
  private onLine(line: AtofLine, event: AtofEvent): void {
    if (this.shutdownPromise !== null) {
      this.counter.record("atof.events_dropped", "event delivered after shutdown");
      return;
    }
    this.buffer(event, line);
  }

  private buffer(event: AtofEvent, line: AtofLine): void {
    const fitted = lineWithin(event, line, this.maxLineBytes);
    if (fitted === undefined) {
      this.counter.record(
        "atof.events_dropped",
        `event ${String(event.uuid)}: larger than ${this.maxLineBytes} bytes even without its payload`,
      );
      return;
    }
    if (fitted.omitted > 0) {
      this.counter.record(
        "atof.payload_omitted",
        `event ${String(event.uuid)}: larger than ${this.maxLineBytes} bytes; ` +
          "its largest payload fields are replaced by a marker with their size",
      );
    }
    if (!this.sink.enqueue(fitted.line)) this.counter.record("atof.events_dropped", "buffer full: the sink is not keeping up");
  }

  /** Feeds several events, in order. */
  export(events: readonly AtofEvent[]): void {
    for (const event of events) this.onEvent(event);
  }

  /** Writes (file: and fsyncs) or sends everything delivered so far. Never rejects. */
  async forceFlush(): Promise<void> {
    await this.registrations.flushDelivery();
    try {
      await this.sink.flush();
    } catch (err) {
      this.counter.record("atof.flush_failed", err instanceof Error ? err.message : String(err));
    }
  }

  /**
   * Flushes and releases the sink (call the remover from `register` first to stop delivery).
   * Idempotent: later calls return the first call's promise.
   */
  shutdown(): Promise<void> {
    this.shutdownPromise ??= this.close();
    return this.shutdownPromise;
  }

  /** Counted failures (dropped events, failed writes or requests), one entry per code. */
  diagnostics(): Diagnostic[] {
    return this.counter.list();
  }

  private async close(): Promise<void> {
    // Stays subscribed on purpose: the runtime reports attached exporters' diagnostics, and
    // events delivered after shutdown are counted as dropped rather than silently lost.
    try {
      await this.sink.close();
    } catch (err) {
      this.counter.record("atof.flush_failed", err instanceof Error ? err.message : String(err));
    }
  }
}
