import { createReadStream } from "node:fs";
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { jsonTextChunks } from "../../../events/json-text.js";
import type { Json } from "../../../events/json.js";
import { allowedHosts } from "./host-check.js";
import type { LiveIndex } from "./live-index.js";
import { DASHBOARD_CSP, DASHBOARD_HTML, DASHBOARD_SCRIPT, DASHBOARD_STYLES } from "../page.js";
import { compareAnswer, traceAnswer, UnknownRun } from "./run-views.js";
import { fileInDirectory, RefusedPath } from "./safe-path.js";

const TRACE_ID = /^[0-9a-f]{32}$/;

/** Headers of every answer: nothing cached, sniffed, framed or sent on as a referrer. */
const COMMON_HEADERS = {
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cross-origin-resource-policy": "same-origin",
  "x-frame-options": "DENY",
};

function send(res: ServerResponse, status: number, type: string, body: string, extra: Record<string, string> = {}): void {
  res.writeHead(status, { ...COMMON_HEADERS, "content-type": type, "content-length": Buffer.byteLength(body), ...extra });
  res.end(body);
}

function sendError(res: ServerResponse, status: number, message: string): void {
  send(res, status, "application/json; charset=utf-8", JSON.stringify({ error: message }));
}

/** Resolves when the response can take more, or is gone. */
function writable(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

/** A JSON answer written in pieces (a trace with large bodies is never one string), honouring backpressure. */
async function sendJson(res: ServerResponse, value: unknown): Promise<void> {
  res.writeHead(200, { ...COMMON_HEADERS, "content-type": "application/json; charset=utf-8" });
  for (const chunk of jsonTextChunks(value as Json)) {
    if (!res.write(chunk)) await writable(res);
    if (res.destroyed) return;
  }
  res.end();
}

/** The request's path and query as sent (not normalized: `/files/../x` stays a request for a file named `../x`). */
function splitTarget(url: string): { path: string; query: URLSearchParams } {
  const q = url.indexOf("?");
  return q < 0 ? { path: url, query: new URLSearchParams() } : { path: url.slice(0, q), query: new URLSearchParams(url.slice(q + 1)) };
}

function numberParam(query: URLSearchParams, key: string): number {
  const n = Number(query.get(key) ?? "0");
  return Number.isFinite(n) ? n : 0;
}

/** `/files/NAME`: one ATOF file of the directory, as it is on disk; any other name is not found. */
async function sendFile(res: ServerResponse, realDir: string, encoded: string): Promise<void> {
  let path: string;
  try {
    path = await fileInDirectory(realDir, decodeURIComponent(encoded));
  } catch (error) {
    if (error instanceof RefusedPath || error instanceof URIError) return sendError(res, 404, "no such file");
    throw error;
  }
  res.writeHead(200, { ...COMMON_HEADERS, "content-type": "application/x-ndjson; charset=utf-8", "content-disposition": "attachment" });
  const stream = createReadStream(path);
  stream.on("error", () => res.destroy());
  stream.pipe(res);
}

async function route(index: LiveIndex, realDir: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { path, query } = splitTarget(req.url ?? "/");
  if (path === "/" || path === "/index.html")
    return send(res, 200, "text/html; charset=utf-8", DASHBOARD_HTML, { "content-security-policy": DASHBOARD_CSP });
  if (path === "/dashboard.js") return send(res, 200, "text/javascript; charset=utf-8", DASHBOARD_SCRIPT);
  if (path === "/dashboard.css") return send(res, 200, "text/css; charset=utf-8", DASHBOARD_STYLES);
  if (path === "/api/runs") return sendJson(res, index.answer(numberParam(query, "epoch"), numberParam(query, "since")));
  if (path.startsWith("/api/trace/")) {
    const id = path.slice("/api/trace/".length);
    if (!TRACE_ID.test(id)) return sendError(res, 404, "no such run");
    return sendJson(res, await traceAnswer(index, id));
  }
  if (path === "/api/compare") {
    const a = query.get("a") ?? "";
    const b = query.get("b") ?? "";
    if (!TRACE_ID.test(a) || !TRACE_ID.test(b)) return sendError(res, 404, "no such run");
    return sendJson(res, await compareAnswer(index, a, b));
  }
  if (path.startsWith("/files/")) return sendFile(res, realDir, path.slice("/files/".length));
  sendError(res, 404, "not found");
}

export interface DashboardHttp {
  server: Server;
  /** Host and port as bound (the OS's port when 0 was asked for). */
  host: string;
  port: number;
}

/**
 * The dashboard's HTTP server: the page, its script and stylesheet, and the JSON of the index.
 * Only GET; only requests that name this server in their Host header (a page on another site
 * that resolves its name to this address, DNS rebinding, is refused).
 */
export async function listenDashboard(index: LiveIndex, realDir: string, host: string, port: number): Promise<DashboardHttp> {
  let hosts: Set<string> = new Set();
  const server = createServer((req, res) => {
    if (!hosts.has((req.headers.host ?? "").toLowerCase())) return sendError(res, 421, "this server answers to its own address only");
    if (req.method !== "GET") return sendError(res, 405, "only GET");
    route(index, realDir, req, res).catch((error: unknown) => {
      if (res.headersSent) return void res.destroy();
      if (error instanceof UnknownRun) return sendError(res, 404, error.message);
      sendError(res, 500, error instanceof Error ? error.message : String(error));
    });
  });
  server.listen(port, host);
  await Promise.race([once(server, "listening"), once(server, "error").then(([e]) => Promise.reject(e as Error))]);
  const bound = (server.address() as AddressInfo).port;
  hosts = allowedHosts(host, bound);
  return { server, host, port: bound };
}
