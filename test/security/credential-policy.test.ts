import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { createClient, createToolkit } from "../../src/agent/index.js";
import type { AtofEvent } from "../../src/events/types.js";
import { createRuntime } from "../../src/runtime/runtime.js";
import { HeaderPolicy, RECORDED_HEADERS, REDACTED } from "../../src/wire/credentials.js";
import { reply, startProvider } from "../support/agent-provider-server.js";
import { captureFull } from "../support/full-capture.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** Headers a gateway or a custom proxy might need; none is on any fixed list of credential names. */
function customAuthHeaders(secret: string): Record<string, string> {
  return {
    "x-auth-token": `${secret}-a`,
    "x-client-secret": `${secret}-b`,
    "x-portkey-api-key": `${secret}-c`,
    "helicone-auth": `Bearer ${secret}-d`,
    "ocp-apim-subscription-key": `${secret}-e`,
    "set-cookie": `sid=${secret}-f`,
    "x-never-seen-before": `${secret}-g`,
  };
}

function llmStartHeaders(events: AtofEvent[]): Record<string, unknown> {
  const start = events.find((e) => e.kind === "scope" && e.category === "llm" && e.scope_category === "start");
  expect(start).toBeDefined();
  return (start!.data as { headers: Record<string, unknown> }).headers;
}

describe("one credential policy for every path that records headers", () => {
  it.each(["run", "stream"] as const)("client %s(): custom auth headers keep their names, never their values", async (path) => {
    const secret = `canary${randomBytes(10).toString("hex")}`;
    const sse =
      'data: {"id":"x","model":"stub","choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}\n\n' +
      'data: {"id":"x","model":"stub","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}\n\ndata: [DONE]\n\n';
    const provider = await startProvider([path === "run" ? reply("openai", "ok") : { sse }]);
    cleanups.push(provider.close);
    const runtime = createRuntime();
    const collect = captureFull(runtime);
    const client = createClient({
      baseUrl: provider.url,
      style: "openai",
      model: "m",
      apiKey: "unused",
      runtime,
      headers: customAuthHeaders(secret),
    });
    const toolkit = await createToolkit({});
    if (path === "run") await client.run("hi", { toolkit });
    else for await (const _ of client.stream("hi", { toolkit })) void _;
    // the provider got every value…
    for (const [name, value] of Object.entries(customAuthHeaders(secret))) expect(String(provider.requests[0]!.headers[name])).toBe(value);
    const { events, text } = await collect();
    // …and no output has any of them
    expect(text).not.toContain(secret);
    const recorded = llmStartHeaders(events);
    for (const name of Object.keys(customAuthHeaders(secret))) expect(recorded[name]).toBe(REDACTED);
    expect(recorded["content-type"]).toBe("application/json");
  });

  it("runtime.executeLlm: only allow-listed values are recorded, in ATOF and on the span", async () => {
    const secret = `canary${randomBytes(10).toString("hex")}`;
    const runtime = createRuntime();
    const collect = captureFull(runtime);
    let sent: Record<string, unknown> | undefined;
    await runtime.executeLlm(
      "custom.llm",
      { headers: { ...customAuthHeaders(secret), "anthropic-version": "2023-06-01", "User-Agent": "app/2" }, content: { prompt: "hi" } },
      (request) => {
        sent = request.headers;
        return { text: "ok" };
      },
    );
    expect(sent!["x-auth-token"]).toBe(`${secret}-a`); // the real request is untouched
    const { events, spans, text } = await collect();
    expect(text).not.toContain(secret);
    expect(llmStartHeaders(events)).toMatchObject({ "anthropic-version": "2023-06-01", "User-Agent": "app/2", "helicone-auth": REDACTED });
    const attr = String(spans[0]!.attributes["nemo_relay.start.data.headers"]);
    expect(JSON.parse(attr)).toMatchObject({ "anthropic-version": "2023-06-01", "x-portkey-api-key": REDACTED });
  });

  it("recordedHeaders extends the allow-list, case-insensitively", async () => {
    const runtime = createRuntime({ recordedHeaders: ["X-Tenant"] });
    const collect = captureFull(runtime);
    await runtime.executeLlm("custom.llm", { headers: { "x-tenant": "acme", "x-tenant-key": "k-123456789" }, content: {} }, () => ({}));
    const { events } = await collect();
    const recorded = llmStartHeaders(events);
    expect(recorded["x-tenant"]).toBe("acme");
    expect(recorded["x-tenant-key"]).toBe(REDACTED);
  });

  it("a provider error echoing a custom auth header's value is scrubbed before it reaches the app, events or spans", async () => {
    const secret = `canary${randomBytes(10).toString("hex")}`;
    const provider = await startProvider([{ status: 403, json: { error: `gateway refused token ${secret}-a` } }]);
    cleanups.push(provider.close);
    const runtime = createRuntime();
    const collect = captureFull(runtime);
    const client = createClient({
      baseUrl: provider.url,
      style: "openai",
      model: "m",
      apiKey: "unused",
      runtime,
      retries: 0,
      headers: customAuthHeaders(secret),
    });
    const failure = await client.run("hi", { toolkit: await createToolkit({}) }).catch((e: unknown) => e as Error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toContain("403");
    expect((failure as Error).message).not.toContain(secret);
    const { text } = await collect();
    expect(text).not.toContain(secret);
  });
});

describe("HeaderPolicy", () => {
  it("keeps names, redacts unlisted values, and lists nothing that carries a secret by default", () => {
    const policy = new HeaderPolicy();
    expect(policy.recordable({ Accept: "a", Authorization: "Bearer x", "X-Foo": "y" })).toEqual({
      Accept: "a",
      Authorization: REDACTED,
      "X-Foo": REDACTED,
    });
    for (const name of RECORDED_HEADERS) expect(name).not.toMatch(/auth|key|token|secret|cookie|pass/);
  });

  it("scrubs each whole value and each long part of it from free text", () => {
    const policy = new HeaderPolicy();
    const text = policy.scrub("echo: Bearer abcdefgh12345 and sid=zyxwvut9876 end", {
      authorization: "Bearer abcdefgh12345",
      cookie: "sid=zyxwvut9876",
    });
    expect(text).toBe(`echo: ${REDACTED} and ${REDACTED} end`);
  });
});
