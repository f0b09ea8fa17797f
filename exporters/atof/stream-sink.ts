import type { DiagnosticCounter } from "../../src/wire/diagnostics.js";
import { redactUrl, splitUserinfo } from "../../src/wire/urls.js";
import type { AtofLine, LineBuffer } from "./line-buffer.js";
import type { AtofSink } from "./sink.js";

export interface StreamSinkSettings {
  url: string;
  headers: Record<string, string>;
  timeoutMillis: number;
  maxRetries: number;
  retryBaseMillis: number;
  maxBatchLines: number;
  flushIntervalMillis: number;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function messageOf(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as { cause?: unknown }).cause;
    return cause instanceof Error ? `${err.message} (${cause.message})` : err.message;
  }
  return String(err);
}

/** POSTs batches of NDJSON lines, one request at a time so the receiver sees them in order. */
export class StreamSink implements AtofSink {
  private readonly headers: Record<string, string>;
  /** where batches go: the configured URL without its userinfo (that travels as Basic credentials) */
  private readonly target: string;
  /** the URL as messages show it: userinfo and query values redacted */
  private readonly shownUrl: string;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private sending: Promise<void> | null = null;
  private closed: Promise<void> | null = null;

  constructor(
    private readonly settings: StreamSinkSettings,
    private readonly buffer: LineBuffer,
    private readonly diagnostics: DiagnosticCounter,
  ) {
    const headers: Record<string, string> = {};
    const { url, basicAuth } = splitUserinfo(settings.url);
    this.target = url;
    this.shownUrl = redactUrl(settings.url);
    if (basicAuth !== undefined) headers.authorization = basicAuth;
    for (const [key, value] of Object.entries(settings.headers)) {
      if (key.toLowerCase() === "content-type") continue;
      if (key.toLowerCase() === "authorization") delete headers.authorization;
      headers[key] = value;
    }
    headers["content-type"] = "application/x-ndjson";
    this.headers = headers;
  }

  enqueue(line: AtofLine): boolean {
    if (!this.buffer.push(line)) return false;
    if (this.buffer.length >= this.settings.maxBatchLines) void this.pump();
    else if (this.sending === null) this.schedule();
    return true;
  }

  /** Waits a little so that one request carries many events. */
  private schedule(): void {
    if (this.timer !== null) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.pump();
    }, this.settings.flushIntervalMillis);
  }

  async flush(): Promise<void> {
    this.clearTimer();
    while (this.sending !== null || this.buffer.length > 0) await this.pump();
  }

  close(): Promise<void> {
    this.closed ??= this.flush();
    return this.closed;
  }

  private clearTimer(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  private pump(): Promise<void> {
    this.clearTimer();
    this.sending ??= this.drain().finally(() => {
      this.sending = null;
      // Lines may arrive between the last drain check and this callback.
      if (this.buffer.length > 0) this.schedule();
    });
    return this.sending;
  }

  private async drain(): Promise<void> {
    while (this.buffer.length > 0) await this.send(this.buffer.take(this.settings.maxBatchLines));
  }

  private async send({ bytes: body, lines }: { bytes: Buffer; lines: number }): Promise<void> {
    const { maxRetries, retryBaseMillis, timeoutMillis } = this.settings;
    const url = this.shownUrl;
    let lastError = "";
    for (let attempt = 0; attempt <= maxRetries; attempt++) {
      if (attempt > 0) {
        this.diagnostics.record("atof.stream_retry", `retrying POST ${url} after: ${lastError}`);
        await sleep(retryBaseMillis * 2 ** (attempt - 1));
      }
      try {
        // Global fetch: on Node, Bun, Deno and Cloudflare Workers alike.
        const response = await fetch(this.target, {
          method: "POST",
          headers: this.headers,
          body,
          signal: AbortSignal.timeout(timeoutMillis),
        });
        await response.arrayBuffer();
        if (response.ok) return;
        lastError = `HTTP ${response.status}`;
      } catch (err) {
        lastError = messageOf(err);
      }
    }
    this.diagnostics.record(
      "atof.stream_failed",
      `POST ${url} failed after ${maxRetries + 1} attempt${maxRetries === 0 ? "" : "s"}: ${lastError}`,
    );
    this.diagnostics.record("atof.events_dropped", `${lines} events lost: POST ${url} failed`, lines);
  }
}
