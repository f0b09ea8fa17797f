import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { AtofExporter, OtelExporter } from "../../exporters/index.js";
import { createRuntime } from "../../src/runtime/runtime.js";
import { DEFAULT_SHUTDOWN_TIMEOUT_MS } from "../../src/runtime/shutdown.js";

const servers: { server: Server; sockets: Set<Socket> }[] = [];
afterEach(async () => {
  for (const { server, sockets } of servers.splice(0)) {
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  }
});

/** A receiver on 127.0.0.1 that accepts every connection and request and never answers. */
async function silentReceiver(): Promise<{ url: string; requests: () => number }> {
  const sockets = new Set<Socket>();
  let requests = 0;
  const server = createServer(() => {
    requests++;
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  servers.push({ server, sockets });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests: () => requests };
}

async function emitMany(runtime: ReturnType<typeof createRuntime>, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await runtime.withScope(`step-${i}`, () => runtime.mark("tick", { data: { i } }));
}

describe("runtime.shutdown({ timeoutMs }) has one overall deadline", () => {
  it("returns by the deadline against receivers that never answer, whatever the exporters' own timeouts, and says so", async () => {
    const receiver = await silentReceiver();
    const runtime = createRuntime();
    // Ten queued ATOF batches with a minute per request and retries, plus an OTLP exporter as patient.
    new AtofExporter({ type: "stream", url: `${receiver.url}/events`, maxBatchLines: 2, timeoutMillis: 60_000, maxRetries: 3 }).register(
      runtime,
    );
    new OtelExporter({ projection: "full", endpoint: `${receiver.url}/v1/traces`, timeoutMillis: 60_000 }).register(runtime);
    await emitMany(runtime, 10);
    const started = performance.now();
    await runtime.shutdown({ timeoutMs: 300 });
    const waited = performance.now() - started;
    expect(receiver.requests()).toBeGreaterThan(0); // the exporters really were stuck on the receiver
    expect(waited).toBeLessThan(10_000); // far below any single exporter timeout (60 s)
    const timeout = runtime.diagnostics().find((d) => d.code === "shutdown_timeout");
    expect(timeout?.message).toMatch(
      /^shutdown gave up after 300 ms; still running: (AtofExporter, OtelExporter|OtelExporter, AtofExporter)$/,
    );
    // A second call is the first one's promise: it resolves at once.
    await runtime.shutdown({ timeoutMs: 60_000 });
  });

  it(`defaults to ${DEFAULT_SHUTDOWN_TIMEOUT_MS} ms`, async () => {
    const receiver = await silentReceiver();
    const runtime = createRuntime();
    new AtofExporter({ type: "stream", url: `${receiver.url}/events`, timeoutMillis: 120_000 }).register(runtime);
    await emitMany(runtime, 2);
    await runtime.shutdown();
    expect(runtime.diagnostics().find((d) => d.code === "shutdown_timeout")?.message).toMatch(/^shutdown gave up after 5000 ms/);
  }, 30_000);

  it("rejects a timeout that is not a non-negative number", async () => {
    const runtime = createRuntime();
    await expect(runtime.shutdown({ timeoutMs: -1 })).rejects.toThrow(/timeoutMs must be a non-negative finite number/);
    await expect(runtime.shutdown({ timeout: 5 } as never)).rejects.toThrow(/unknown option "timeout" \(did you mean "timeoutMs"\?\)/);
  });
});
