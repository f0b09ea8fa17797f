import { afterEach, describe, expect, it } from "vitest";
import {
  postJson,
  ProviderConnectionError,
  ProviderHttpError,
  ProviderResponseError,
  ProviderTimeoutError,
  retryAfterMs,
} from "../../src/agent/providers/index.js";
import type { RetryInfo } from "../../src/agent/providers/index.js";
import { deadPort, startProvider } from "../support/providers-server.js";
import type { FakeProvider, Reply } from "../support/providers-server.js";

let server: FakeProvider | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const ok = { body: { choices: [{ message: { content: "hi" } }] } };

async function post(replies: Reply[], extra: Partial<Parameters<typeof postJson>[0]> = {}) {
  server = await startProvider(replies);
  const retries: RetryInfo[] = [];
  const run = postJson({
    url: `${server.baseUrl}/chat/completions`,
    body: { model: "m" },
    retryBaseMs: 1,
    onRetry: (r) => retries.push(r),
    ...extra,
  });
  return { run, retries, server };
}

async function failure(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error("expected the call to fail");
}

describe("postJson retries", () => {
  it("retries a 503 and returns the 200 that follows", async () => {
    const { run, retries, server } = await post([{ status: 503, body: "busy" }, ok]);
    const res = await run;
    expect(res.status).toBe(200);
    expect(res.attempts).toBe(2);
    expect(res.json).toEqual(ok.body);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.json).toEqual({ model: "m" });
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ attempt: 0, status: 503 });
    // backoff = 1 * 2^0 + random(0..99)
    expect(retries[0]!.delayMs).toBeGreaterThanOrEqual(1);
    expect(retries[0]!.delayMs).toBeLessThanOrEqual(100);
  });

  it("honours Retry-After: 0 on a 429", async () => {
    const { run, retries } = await post([{ status: 429, headers: { "Retry-After": "0" }, body: "slow down" }, ok]);
    expect((await run).attempts).toBe(2);
    expect(retries).toEqual([{ attempt: 0, status: 429, delayMs: 0 }]);
  });

  it("falls back to backoff when Retry-After is not all digits", async () => {
    const { run, retries } = await post(
      [
        { status: 429, headers: { "retry-after": "Wed, 21 Oct 2015 07:28:00 GMT" } },
        { status: 429, headers: { "retry-after": "1.5" } },
        ok,
      ],
      { retries: 2 },
    );
    expect((await run).attempts).toBe(3);
    expect(retries.map((r) => r.attempt)).toEqual([0, 1]);
    expect(retries[0]!.delayMs).toBeGreaterThanOrEqual(1);
    expect(retries[0]!.delayMs).toBeLessThanOrEqual(100);
    expect(retries[1]!.delayMs).toBeGreaterThanOrEqual(2);
    expect(retries[1]!.delayMs).toBeLessThanOrEqual(101);
  });

  it("reads Retry-After as whole seconds within range only", () => {
    expect(retryAfterMs(" 3 ")).toBe(3000);
    expect(retryAfterMs("0")).toBe(0);
    expect(retryAfterMs("2147483647")).toBe(2147483647000);
    for (const bad of ["", "-1", "+1", "1.5", "2147483648", "1e3", "soon", undefined]) expect(retryAfterMs(bad)).toBeUndefined();
  });

  it("fails after the last attempt with the status and the start of the body", async () => {
    const body = `{"error":"kaput"}${"x".repeat(800)}`;
    const { run, retries, server } = await post([
      { status: 500, body },
      { status: 500, body },
      { status: 500, body },
    ]);
    const err = await failure(run);
    expect(err).toBeInstanceOf(ProviderHttpError);
    const http = err as ProviderHttpError;
    expect(http.status).toBe(500);
    expect(http.code).toBe("retryable_status");
    expect(http.message).toBe(`LLM 500: ${body.slice(0, 500)}`);
    expect(server.requests).toHaveLength(3);
    expect(retries).toHaveLength(2);
  });

  it("does not retry other 4xx statuses and classifies them", async () => {
    const { run, server } = await post([{ status: 401, body: "bad key" }, ok]);
    const err = (await failure(run)) as ProviderHttpError;
    expect(err.message).toBe("LLM 401: bad key");
    expect(err.code).toBe("authentication");
    expect(server.requests).toHaveLength(1);
    const second = await post([{ status: 400, body: "bad body" }, ok]);
    expect(((await failure(second.run)) as ProviderHttpError).code).toBe("invalid_request");
  });

  it("retries a refused connection, then fails with a clear connection error", async () => {
    const port = await deadPort();
    const retries: RetryInfo[] = [];
    const err = await failure(
      postJson({ url: `http://127.0.0.1:${port}/chat/completions`, body: {}, retries: 2, retryBaseMs: 1, onRetry: (r) => retries.push(r) }),
    );
    expect(err).toBeInstanceOf(ProviderConnectionError);
    expect((err as ProviderConnectionError).code).toBe("connection_error");
    expect((err as Error).message).toMatch(new RegExp(`127\\.0\\.0\\.1:${port}.*ECONNREFUSED`));
    expect(retries.map((r) => r.attempt)).toEqual([0, 1]);
    expect(retries[0]!.error).toMatch(/ECONNREFUSED/);
  });

  it("does not retry a URL that cannot be requested", async () => {
    const retries: RetryInfo[] = [];
    const err = await failure(postJson({ url: "not a url", body: {}, retryBaseMs: 1, onRetry: (r) => retries.push(r) }));
    expect((err as { code?: string }).code).toBe("invalid_request");
    expect((err as Error).message).toMatch(/could not be sent/);
    expect(retries).toHaveLength(0);
  });

  it("never retries an abort and rejects with the caller's reason", async () => {
    const controller = new AbortController();
    const { run, retries, server } = await post([{ hang: true }, ok], { signal: controller.signal });
    server.onRequest = () => controller.abort(new Error("user cancelled"));
    const err = await failure(run);
    expect((err as Error).message).toBe("user cancelled");
    expect(server.requests).toHaveLength(1);
    expect(retries).toHaveLength(0);
  });

  it("aborts the retry sleep instead of waiting it out", async () => {
    const controller = new AbortController();
    const delays: number[] = [];
    const { run, server } = await post([{ status: 503, headers: { "retry-after": "3600" } }, ok], {
      signal: controller.signal,
      onRetry: (info) => {
        delays.push(info.delayMs);
        controller.abort(new Error("stop waiting"));
      },
    });
    expect(((await failure(run)) as Error).message).toBe("stop waiting");
    expect(delays).toEqual([3_600_000]);
    expect(server.requests).toHaveLength(1);
  });

  it("turns its own deadline into a timeout error that is not retried", async () => {
    const { run, retries, server } = await post([{ hang: true }, ok], { timeoutMs: 50 });
    const err = await failure(run);
    expect(err).toBeInstanceOf(ProviderTimeoutError);
    expect((err as ProviderTimeoutError).code).toBe("timeout");
    expect(server.requests).toHaveLength(1);
    expect(retries).toHaveLength(0);
  });
});

describe("postJson reply handling", () => {
  it("reports a 200 body that is not JSON, with its start", async () => {
    const { run } = await post([{ body: "<html>gateway says hi</html>" }]);
    const err = await failure(run);
    expect(err).toBeInstanceOf(ProviderResponseError);
    expect((err as Error).message).toMatch(/not JSON: <html>gateway says hi/);
  });

  it("reports a connection dropped mid-reply clearly", async () => {
    const { run } = await post([{ body: '{"choices":[{"message":{"content":"par', destroy: true }]);
    const err = await failure(run);
    expect(err).toBeInstanceOf(ProviderConnectionError);
    expect((err as Error).message).toMatch(/connection closed while reading the LLM reply .*status 200/);
  });

  it("sends caller headers over the defaults and returns response headers", async () => {
    const { run, server } = await post([{ ...ok, headers: { "x-request-id": "req-9" } }], {
      headers: { "Content-Type": "application/json; charset=utf-8", "x-extra": "1" },
    });
    const res = await run;
    expect(res.headers["x-request-id"]).toBe("req-9");
    expect(server.requests[0]!.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(server.requests[0]!.headers["x-extra"]).toBe("1");
  });
});
