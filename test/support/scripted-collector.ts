// An OTLP/HTTP collector on 127.0.0.1 whose reply to each request the test scripts (status,
// headers, body, or no reply at all), over plain HTTP or TLS. It keeps every request as it came
// (headers, the body after any gzip, which connection carried it) and decodes the spans in it
// (protobuf or JSON).
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import type { TLSSocket } from "node:tls";
import { gunzipSync } from "node:zlib";
import { decodeOtlp, spansOf } from "./otlp.js";

export interface CollectorReply {
  status: number;
  headers?: Record<string, string>;
  body?: Uint8Array | string;
  /** Never answer: the client has to give up. */
  hang?: boolean;
}

export interface CollectorRequest {
  path: string;
  headers: IncomingMessage["headers"];
  /** The body as sent, before any gzip was undone. */
  rawBody: Buffer;
  spans: Record<string, unknown>[];
  /** Which connection carried it: 0 for the collector's first, 1 for its second, … */
  connection: number;
  /** Over TLS, the common name of the client's certificate (when it gave one). */
  clientCertificate?: string;
  /** Resolves when the connection that carried it closes. */
  connectionClosed: Promise<void>;
}

export interface ScriptedCollector {
  /** `http(s)://127.0.0.1:PORT/v1/traces`. */
  url: string;
  /** The base URL, without a path. */
  base: string;
  requests: CollectorRequest[];
  close(): Promise<void>;
}

export interface CollectorTls {
  key: string;
  cert: string;
  /** The CA whose client certificates are required (mutual TLS); none: no client certificate asked. */
  clientCa?: string;
}

/** Starts a collector answering the n-th request (0-based) with `reply(n, request)`. */
export async function startScriptedCollector(
  reply: (n: number, request: CollectorRequest) => CollectorReply = () => ({ status: 200 }),
  tls?: CollectorTls,
): Promise<ScriptedCollector> {
  const requests: CollectorRequest[] = [];
  const connections = new Map<Socket, { index: number; closed: Promise<void> }>();
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const rawBody = Buffer.concat(chunks);
      const body = req.headers["content-encoding"] === "gzip" ? gunzipSync(rawBody) : rawBody;
      const contentType = String(req.headers["content-type"] ?? "");
      const connection = connections.get(req.socket)!;
      const peer = tls?.clientCa ? (req.socket as TLSSocket).getPeerCertificate() : undefined;
      const request: CollectorRequest = {
        path: req.url ?? "",
        headers: req.headers,
        rawBody,
        spans: /protobuf|json/.test(contentType) ? spansOf(decodeOtlp("traces", contentType, body)) : [],
        connection: connection.index,
        connectionClosed: connection.closed,
        ...(peer?.subject ? { clientCertificate: String(peer.subject.CN) } : {}),
      };
      requests.push(request);
      const answer = reply(requests.length - 1, request);
      if (answer.hang) return;
      res.writeHead(answer.status, answer.headers ?? { "content-type": "application/x-protobuf" });
      res.end(answer.body ?? "");
    });
  };
  const server: Server = tls
    ? createHttpsServer({ key: tls.key, cert: tls.cert, ...(tls.clientCa ? { ca: tls.clientCa, requestCert: true } : {}) }, handler)
    : createHttpServer(handler);
  server.on(tls ? "secureConnection" : "connection", (socket: Socket) => {
    const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    connections.set(socket, { index: connections.size, closed });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `${tls ? "https" : "http"}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${base}/v1/traces`,
    base,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An ExportTraceServiceResponse whose partial_success rejected `rejected` spans with `message`. */
export function partialSuccessReply(rejected: number, message: string): Buffer {
  const text = Buffer.from(message, "utf8");
  // ExportTracePartialSuccess: rejected_spans (field 1, varint), error_message (field 2, bytes); both short here.
  const partial = Buffer.concat([Buffer.from([0x08, rejected, 0x12, text.length]), text]);
  return Buffer.concat([Buffer.from([0x0a, partial.length]), partial]);
}
