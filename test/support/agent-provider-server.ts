import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** What the scripted provider received. */
export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
  /** The body as received, byte for byte (decoded as UTF-8). */
  text: string;
}

export interface ScriptedReply {
  status?: number;
  json?: unknown;
  /** Raw SSE text; sent as text/event-stream. */
  sse?: string;
  headers?: Record<string, string>;
  /** Never answer (the test aborts the client). */
  hang?: boolean;
}

export type Script = (request: ReceivedRequest, index: number) => ScriptedReply;

/** A real HTTP server on 127.0.0.1 playing the LLM provider, one scripted reply per request. */
export async function startProvider(
  script: Script | ScriptedReply[],
): Promise<{ url: string; requests: ReceivedRequest[]; close(): Promise<void> }> {
  const requests: ReceivedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      let body: Record<string, unknown> = {};
      try {
        if (text) body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        // Not a provider call: a stray export from an earlier test that reached a reused loopback
        // port (OTLP protobuf, say). Refuse it without taking one of this script's replies.
        res.writeHead(400).end();
        return;
      }
      const received: ReceivedRequest = { path: req.url ?? "", headers: req.headers, body, text };
      const index = requests.length;
      requests.push(received);
      const reply = Array.isArray(script) ? (script[Math.min(index, script.length - 1)] as ScriptedReply) : script(received, index);
      if (reply.hang) return;
      if (reply.sse !== undefined) {
        res.writeHead(reply.status ?? 200, { "content-type": "text/event-stream", ...reply.headers });
        res.end(reply.sse);
        return;
      }
      res.writeHead(reply.status ?? 200, { "content-type": "application/json", ...reply.headers });
      res.end(JSON.stringify(reply.json ?? {}));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export interface CallSpec {
  id: string;
  name: string;
  /** OpenAI: the raw arguments text. */
  arguments?: string;
  /** Anthropic: the input object. */
  input?: Record<string, unknown>;
}

export function openaiReply(
  content: string | null,
  calls: CallSpec[] = [],
  usage = { prompt_tokens: 4, completion_tokens: 2, total_tokens: 6 },
): ScriptedReply {
  const message: Record<string, unknown> = { role: "assistant", content };
  if (calls.length > 0)
    message.tool_calls = calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments ?? "{}" } }));
  return { json: { id: "x", model: "stub", choices: [{ index: 0, message, finish_reason: calls.length ? "tool_calls" : "stop" }], usage } };
}

export function anthropicReply(text: string, calls: CallSpec[] = [], usage = { input_tokens: 4, output_tokens: 2 }): ScriptedReply {
  const content: unknown[] = [];
  if (text) content.push({ type: "text", text });
  for (const c of calls) content.push({ type: "tool_use", id: c.id, name: c.name, input: c.input ?? {} });
  return {
    json: {
      id: "m",
      type: "message",
      role: "assistant",
      model: "stub",
      content,
      stop_reason: calls.length ? "tool_use" : "end_turn",
      usage,
    },
  };
}

/** A reply in either style. */
export function reply(style: "openai" | "anthropic", text: string, calls: CallSpec[] = []): ScriptedReply {
  if (style === "openai")
    return openaiReply(
      calls.length && !text ? null : text,
      calls.map((c) => ({ ...c, arguments: c.arguments ?? JSON.stringify(c.input ?? {}) })),
    );
  return anthropicReply(
    text,
    calls.map((c) => ({ ...c, input: c.input ?? (c.arguments ? (JSON.parse(c.arguments) as Record<string, unknown>) : {}) })),
  );
}
