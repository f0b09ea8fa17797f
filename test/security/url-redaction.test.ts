import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { AtofExporter } from "../../exporters/atof/index.js";
import { createClient, createToolkit } from "../../src/agent/index.js";
import { createRuntime } from "../../src/runtime/runtime.js";
import { REDACTED } from "../../src/wire/credentials.js";
import { joinUrl, redactUrl, redactUrlsInText } from "../../src/wire/urls.js";
import { anthropicMessagesCodec } from "../../src/wire/index.js";

const anthropicUrl = (base: string): string => anthropicMessagesCodec.endpoint(base, "", false);
import { reply, startProvider } from "../support/agent-provider-server.js";
import { captureFull } from "../support/full-capture.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** A loopback port with nothing listening (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("credentials in URLs never leave the process", () => {
  it("a baseUrl with userinfo and ?key= is redacted in the error thrown to the app, in ATOF and in span attributes", async () => {
    const secret = `canary${randomBytes(10).toString("hex")}`;
    const port = await closedPort();
    const runtime = createRuntime();
    const collect = captureFull(runtime);
    const client = createClient({
      baseUrl: `http://proxyuser:${secret}-pass@127.0.0.1:${port}/v1beta?key=${secret}-key&alt=sse`,
      style: "openai",
      model: "m",
      apiKey: "unused",
      runtime,
      retries: 0,
    });
    const failure = (await client.run("hi", { toolkit: await createToolkit({}) }).catch((e: unknown) => e)) as Error;
    expect(failure).toBeInstanceOf(Error);
    expect(failure.message).not.toContain(secret);
    // still says where it failed, with the path before the query
    expect(failure.message).toContain(`http://${REDACTED}@127.0.0.1:${port}/v1beta/chat/completions?key=${REDACTED}&alt=${REDACTED}`);
    const { events, text } = await collect();
    expect(text).not.toContain(secret);
    const llmEnd = events.find((e) => e.kind === "scope" && e.category === "llm" && e.scope_category === "end");
    expect(JSON.stringify(llmEnd!.metadata)).toContain(`key=${REDACTED}`);
  });

  it("the request URL puts the dialect's path before the query, and userinfo travels as Basic credentials", async () => {
    const provider = await startProvider([reply("openai", "ok")]);
    cleanups.push(provider.close);
    const base = provider.url.replace("http://", "http://alice:s3cr%40t@");
    const client = createClient({ baseUrl: `${base}/v1?key=K1`, style: "openai", model: "m", runtime: createRuntime() });
    const result = await client.run("hi", { toolkit: await createToolkit({}) });
    expect(result.text).toBe("ok");
    expect(provider.requests[0]!.path).toBe("/v1/chat/completions?key=K1");
    expect(provider.requests[0]!.headers.authorization).toBe(`Basic ${Buffer.from("alice:s3cr@t").toString("base64")}`);
  });

  it("an error a user's LLM function throws has the URLs in its message redacted on the llm span", async () => {
    const runtime = createRuntime();
    const collect = captureFull(runtime);
    await expect(
      runtime.executeLlm("custom.llm", { content: {} }, () => {
        throw new Error("fetch failed for https://u:pw123456@api.example.test/v1/models?api-key=topsecret99");
      }),
    ).rejects.toThrow(/topsecret99/); // the app still gets its own error unchanged
    const { text } = await collect();
    expect(text).not.toContain("topsecret99");
    expect(text).not.toContain("pw123456");
    expect(text).toContain(`https://${REDACTED}@api.example.test/v1/models?api-key=${REDACTED}`);
  });

  it("an ATOF stream URL with userinfo and ?token= appears redacted in runtime.diagnostics()", async () => {
    const secret = `canary${randomBytes(10).toString("hex")}`;
    const port = await closedPort();
    const runtime = createRuntime();
    new AtofExporter({
      type: "stream",
      url: `http://ingest:${secret}@127.0.0.1:${port}/atof?token=${secret}-t`,
      maxRetries: 0,
      timeoutMillis: 500,
    }).register(runtime);
    runtime.mark("hello");
    await runtime.shutdown();
    const diagnostics = JSON.stringify(runtime.diagnostics());
    expect(diagnostics).toContain("atof.stream_failed");
    expect(diagnostics).not.toContain(secret);
    expect(diagnostics).toContain(`token=${REDACTED}`);
  });

  it("an ATOF stream URL's userinfo is sent as Basic credentials, not lost", async () => {
    const seen: (string | undefined)[] = [];
    const server = createServer((req, res) => {
      seen.push(req.headers.authorization);
      req.resume();
      req.on("end", () => res.end());
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const { port } = server.address() as AddressInfo;
    const runtime = createRuntime();
    new AtofExporter({ type: "stream", url: `http://ingest:pw@127.0.0.1:${port}/atof` }).register(runtime);
    runtime.mark("hello");
    await runtime.shutdown();
    expect(seen[0]).toBe(`Basic ${Buffer.from("ingest:pw").toString("base64")}`);
  });
});

describe("URL helpers", () => {
  it("redactUrl keeps scheme, host, path and parameter names", () => {
    expect(redactUrl("https://u:p@h.test:8443/a/b?key=1&flag&x=2#frag")).toBe(
      `https://${REDACTED}@h.test:8443/a/b?key=${REDACTED}&flag&x=${REDACTED}#frag`,
    );
    expect(redactUrl("https://h.test/cb#access_token=abc")).toBe(`https://h.test/cb#${REDACTED}`);
    expect(redactUrl("http://h.test/plain")).toBe("http://h.test/plain");
  });

  it("redactUrlsInText rewrites every URL in prose and JSON", () => {
    const text = 'POST http://a:b@x.test/v1?k=v failed; see "https://y.test/?sig=zz" and ftp://z.test/f';
    expect(redactUrlsInText(text)).toBe(
      `POST http://${REDACTED}@x.test/v1?k=${REDACTED} failed; see "https://y.test/?sig=${REDACTED}" and ftp://z.test/f`,
    );
  });

  it("joinUrl and the dialect paths put the path before the query", () => {
    expect(joinUrl("https://h/v1/?key=K#f", "/chat/completions")).toBe("https://h/v1/chat/completions?key=K#f");
    expect(anthropicUrl("https://h/v1?key=K")).toBe("https://h/v1/messages?key=K");
    expect(anthropicUrl("https://h?key=K")).toBe("https://h/v1/messages?key=K");
  });
});
