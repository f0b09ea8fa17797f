import type * as Http from "node:http";
import type * as Zlib from "node:zlib";
import { packageVersion } from "../../src/events/package-version.js";
import { OtlpExporterError, type ExportResponse, type ExporterTransport } from "./otlp-export-response.js";
import { builtin, type OtlpHttpSettings } from "./otlp-http-settings.js";
import { isRetryableStatus, retryAfterMillis } from "./otlp-retry.js";

// One OTLP/HTTP request per export, over Node's http or https module taken with
// process.getBuiltinModule: an ES-module import of node:http builds a namespace of every export,
// whose lazy WebSocket getters load Node's bundled undici, and that alone costs a cold start more
// than the whole export. Replies are read as OpenTelemetry's own Node transport reads them.

/** A reply body larger than this is not read: the export fails (OpenTelemetry's bound). */
export const MAX_REPLY_BYTES = 4 * 1024 * 1024;

/** Socket errors worth a retry: the collector may be back, or reachable, a moment later. */
const RETRYABLE_NETWORK_ERRORS: ReadonlySet<string> = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "EPIPE",
  "ETIMEDOUT",
  "EAI_AGAIN",
  "ENOTFOUND",
  "ENETUNREACH",
  "EHOSTUNREACH",
]);

type HttpModule = Pick<typeof Http, "request" | "Agent">;
type Settle = (response: ExportResponse) => void;

interface Connection {
  /** The module to call `request` on at each send (an instrumentation may wrap it after we took it). */
  module: HttpModule;
  agent: Http.Agent;
}

function gzip(data: Uint8Array): Promise<Buffer> {
  return builtin<typeof Zlib>("node:zlib").then(
    (zlib) => new Promise((resolve, reject) => zlib.gzip(data, (error, out) => (error ? reject(error) : resolve(out)))),
  );
}

function networkFailure(error: Error): ExportResponse {
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && RETRYABLE_NETWORK_ERRORS.has(code) ? { status: "retryable", error } : { status: "failure", error };
}

/** Reads a reply into an ExportResponse: 2xx success (with its body), 429/502/503/504 retryable, anything else a failure. */
function readReply(res: Http.IncomingMessage, settle: Settle): void {
  const chunks: Buffer[] = [];
  let size = 0;
  const status = res.statusCode ?? 0;
  const retryIn = () => retryAfterMillis(res.headers["retry-after"]);
  res.on("data", (chunk: Buffer) => {
    size += chunk.length;
    if (size > MAX_REPLY_BYTES) {
      settle({ status: "failure", error: new Error(`OTLP export response body exceeded size limit of ${MAX_REPLY_BYTES} bytes`) });
      res.destroy();
      return;
    }
    chunks.push(chunk);
  });
  res.on("end", () => {
    if (status >= 200 && status <= 299) settle({ status: "success", data: Buffer.concat(chunks) });
    else if (isRetryableStatus(status)) settle({ status: "retryable", retryInMillis: retryIn() });
    else settle({ status: "failure", error: new OtlpExporterError(res.statusMessage, status, Buffer.concat(chunks).toString()) });
  });
  // The request went through when the status says so, even if its reply breaks off.
  res.on("error", (error) => {
    if (status >= 200 && status <= 299) settle({ status: "success" });
    else if (isRetryableStatus(status)) settle({ status: "retryable", error, retryInMillis: retryIn() });
    else settle({ status: "failure", error });
  });
}

/**
 * The transport under relaytrace's protobuf span exporter in Node. `http:` sends through a
 * keep-alive agent of its own; `https:` through a keep-alive agent that carries the
 * `OTEL_EXPORTER_OTLP_*CERTIFICATE` and `*CLIENT_KEY` files.
 */
export class NodeHttpTransport implements ExporterTransport {
  private connection: Promise<Connection> | undefined;
  private readonly userAgent = `relaytrace/${packageVersion()}`;

  constructor(private readonly settings: OtlpHttpSettings) {}

  async send(data: Uint8Array, timeoutMillis: number): Promise<ExportResponse> {
    const { module, agent } = await this.connect();
    const headers: Record<string, string> = { ...this.settings.headers, "User-Agent": this.userAgent };
    let body = data;
    if (this.settings.compression === "gzip") {
      try {
        body = await gzip(data);
      } catch (error) {
        return { status: "failure", error: error instanceof Error ? error : new Error(String(error)) };
      }
      headers["Content-Encoding"] = "gzip";
    }
    return new Promise<ExportResponse>((resolve) => {
      let settled = false;
      const settle: Settle = (response) => {
        if (settled) return;
        settled = true;
        resolve(response);
      };
      const req = module.request(this.settings.url, { method: "POST", headers, agent }, (res) => readReply(res, settle));
      req.setTimeout(timeoutMillis, () => {
        req.destroy();
        settle({ status: "retryable", error: new Error("Request timed out") });
      });
      req.on("error", (error) => settle(networkFailure(error)));
      req.end(body);
    });
  }

  /** Closes the kept-alive connections; the delegate calls it once every export has settled. */
  shutdown(): void {
    void this.connection?.then(
      ({ agent }) => agent.destroy(),
      () => undefined,
    );
  }

  private connect(): Promise<Connection> {
    this.connection ??= this.open().catch((error: unknown) => {
      this.connection = undefined; // a later export tries again
      throw error;
    });
    return this.connection;
  }

  private async open(): Promise<Connection> {
    const protocol = new URL(this.settings.url).protocol;
    if (protocol === "http:") {
      const http = await builtin<typeof Http>("node:http");
      return { module: http, agent: new http.Agent({ keepAlive: true }) };
    }
    const https = await builtin<HttpModule>("node:https");
    return { module: https, agent: await this.settings.httpsAgent() };
  }
}
