import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { createClient, createToolkit, defineTool } from "../../src/agent/index.js";
import type { Runtime } from "../../src/runtime/runtime.js";
import { reply, startProvider } from "./agent-provider-server.js";

/** What a fault collector does with request number `index` (0-based). */
export type CollectorBehaviour = (index: number, req: IncomingMessage, res: ServerResponse, body: string) => void;

export interface FaultCollector {
  url: string;
  /** Every request that reached the handler, with its body. */
  bodies: string[];
  /** Connections accepted (a refusing collector never reaches the handler). */
  connections: number;
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1 that misbehaves on demand. */
export async function startCollector(behaviour: CollectorBehaviour, path = "/v1/traces"): Promise<FaultCollector> {
  const sockets = new Set<Socket>();
  const state: FaultCollector = { url: "", bodies: [], connections: 0, close: async () => {} };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const index = state.bodies.length;
      state.bodies.push(body);
      behaviour(index, req, res, body);
    });
  });
  server.on("connection", (socket) => {
    state.connections++;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  state.close = () =>
    new Promise<void>((r) => {
      for (const s of sockets) s.destroy();
      server.close(() => r());
    });
  return state;
}

/** A loopback port with nothing listening (bound, then released). */
export async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/** Collector behaviours. */
export const reply200: CollectorBehaviour = (_i, _req, res) => {
  res.writeHead(200, { "content-type": "application/json" });
  res.end("{}");
};
export const replyStatus =
  (status: number, headers: Record<string, string> = {}): CollectorBehaviour =>
  (_i, _req, res) => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end("{}");
  };
export const hang: CollectorBehaviour = () => {};
/** Reads the request, then kills the connection before any reply byte (the client sees a reset). */
export const resetMidRequest: CollectorBehaviour = (_i, req) => {
  req.socket.resetAndDestroy();
};

export const add = defineTool({
  name: "add",
  description: "adds two numbers",
  inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
  execute: (args) => String((args.a as number) + (args.b as number)),
});

/** One full agent run (a tool turn, then text) against a scripted OpenAI-style provider on loopback. */
export async function agentRun(runtime: Runtime, extra: { apiKey?: string; headers?: Record<string, string>; prompt?: string } = {}) {
  const provider = await startProvider([
    reply("openai", "", [{ id: "call_1", name: "add", arguments: '{"a":2,"b":3}' }]),
    reply("openai", "the answer is 5"),
  ]);
  try {
    const client = createClient({
      baseUrl: provider.url,
      style: "openai",
      model: "stub-model",
      apiKey: extra.apiKey ?? "sk-test-key",
      ...(extra.headers ? { headers: extra.headers } : {}),
      runtime,
      retryBaseMs: 1,
    });
    const result = await client.run(extra.prompt ?? "what is 2+3?", { toolkit: await createToolkit({ tools: [add] }) });
    return { result, requests: provider.requests };
  } finally {
    await provider.close();
  }
}

/** The parts of a run result that must not depend on telemetry. */
export function essence(result: Awaited<ReturnType<typeof agentRun>>["result"]) {
  return { status: result.status, text: result.text, toolCalls: result.toolCalls, turns: result.turns, usage: result.usage };
}
