import { createServer } from "node:http";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One scripted reply of the fake provider. */
export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  /** JSON-encoded unless a string */
  body?: unknown;
  /** SSE: written one chunk at a time, then the response ends (or the socket is destroyed) */
  chunks?: string[];
  /** destroy the socket after writing instead of ending the response */
  destroy?: boolean;
  /** never answer (for abort/timeout tests) */
  hang?: boolean;
  /** with `chunks`: write them, then keep the response open until the server closes (a stream cut by the client) */
  hold?: boolean;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** decoded JSON body (undefined when not JSON) */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read fields of any decoded request body
  json: any;
}

export interface FakeProvider {
  baseUrl: string;
  requests: RecordedRequest[];
  /** called when a request has been fully received, before the reply */
  onRequest?: (req: RecordedRequest) => void;
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1 playing the provider with scripted replies, in order. */
export async function startProvider(replies: Reply[]): Promise<FakeProvider> {
  const queue = [...replies];
  const requests: RecordedRequest[] = [];
  const open = new Set<ServerResponse>();
  const fake: FakeProvider = { baseUrl: "", requests, close: async () => {} };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const parts: Buffer[] = [];
    req.on("data", (c: Buffer) => parts.push(c));
    req.on("end", () => {
      const text = Buffer.concat(parts).toString("utf8");
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      const rec: RecordedRequest = { method: req.method ?? "", path: req.url ?? "", headers: req.headers, text, json };
      requests.push(rec);
      fake.onRequest?.(rec);
      const reply = queue.shift() ?? { status: 599, body: "no scripted reply left" };
      if (reply.hang) {
        open.add(res);
        return;
      }
      if (reply.chunks !== undefined) {
        res.writeHead(reply.status ?? 200, { "content-type": "text/event-stream", ...reply.headers });
        reply.chunks.forEach((c, i) => {
          const last = i === reply.chunks!.length - 1;
          // Drop the connection only once the bytes are flushed, so the client sees a mid-stream cut.
          res.write(c, () => {
            if (last && reply.destroy) setImmediate(() => res.socket?.destroy());
          });
        });
        if (reply.hold) open.add(res);
        else if (!reply.destroy) res.end();
        return;
      }
      const body = typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body ?? {});
      if (reply.destroy) {
        // Promise more bytes than we send, then drop the connection mid-reply.
        res.writeHead(reply.status ?? 200, {
          "content-type": "application/json",
          "content-length": String(body.length + 100),
          ...reply.headers,
        });
        res.write(body);
        setImmediate(() => res.socket?.destroy());
        return;
      }
      res.writeHead(reply.status ?? 200, { "content-type": "application/json", ...reply.headers });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  fake.baseUrl = `http://127.0.0.1:${port}`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      for (const res of open) res.socket?.destroy();
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}

/** A port nothing listens on: bind one, then close it. */
export async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** SSE frame helpers. */
export const sse = (data: unknown, event?: string): string =>
  `${event !== undefined ? `event: ${event}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;
