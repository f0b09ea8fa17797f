import { randomBytes } from "node:crypto";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AtifExporter } from "../../exporters/atif/index.js";
import { AtofExporter } from "../../exporters/atof/index.js";
import { OtelExporter } from "../../exporters/otel/index.js";
import { createClient, createToolkit, defineTool } from "../../src/agent/index.js";
import { redactPII } from "../../src/redact/index.js";
import { createRuntime, type Runtime } from "../../src/runtime/runtime.js";
import { reply, startProvider } from "../support/agent-provider-server.js";
import { reply200, startCollector, type FaultCollector } from "../support/fault-collector.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** Every exporter and projection, on real sinks: ATOF file + stream, ATIF files, OTLP/HTTP full, openinference, gen_ai. */
async function allOutputs(runtime: Runtime) {
  const dir = await mkdtemp(join(tmpdir(), "relaytrace-canary-"));
  const collector: FaultCollector = await startCollector(reply200, "/");
  cleanups.push(
    () => rm(dir, { recursive: true, force: true }),
    () => collector.close(),
  );
  const base = collector.url.replace(/\/$/, "");
  new AtofExporter({ type: "file", path: join(dir, "events.jsonl") }).register(runtime);
  new AtofExporter({ type: "stream", url: `${base}/atof` }).register(runtime);
  new AtifExporter({ agent: { name: "canary", version: "1" }, outputDirectory: join(dir, "atif") }).register(runtime);
  for (const projection of ["full", "openinference", "gen_ai"] as const) {
    new OtelExporter({ projection, endpoint: `${base}/v1/traces`, protocol: "http/json", serviceName: `canary-${projection}` }).register(
      runtime,
    );
  }
  /** Shuts down, then returns every byte that left the process plus the diagnostics. */
  return async (): Promise<{ text: string; otlp: string[]; atof: string }> => {
    await runtime.shutdown();
    const atof = await readFile(join(dir, "events.jsonl"), "utf8");
    const atifFiles = await readdir(join(dir, "atif"));
    const atif = await Promise.all(atifFiles.map((f) => readFile(join(dir, "atif", f), "utf8")));
    const otlp = collector.bodies.filter((b) => b.includes("resourceSpans"));
    const text = [atof, ...atif, ...collector.bodies, JSON.stringify(runtime.diagnostics())].join("\n");
    expect(atifFiles.length).toBeGreaterThan(0);
    expect(otlp.length).toBeGreaterThanOrEqual(3);
    return { text, otlp, atof };
  };
}

const echo = defineTool({
  name: "echo",
  description: "echoes",
  inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  execute: (args) => ({ result: `echo: ${String(args.text)}`, annotation: { seen: String(args.text) } }),
});

describe.each(["openai", "anthropic"] as const)("credentials never leave the process (%s)", (style) => {
  it("a unique secret in every credential position is absent from ATOF, ATIF, every span projection and diagnostics", async () => {
    const secret = `canary${randomBytes(12).toString("hex")}`;
    const provider = await startProvider([
      reply(style, "", [{ id: "c1", name: "echo", arguments: '{"text":"hi"}', input: { text: "hi" } }]),
      reply(style, "done"),
    ]);
    cleanups.push(provider.close);
    const runtime = createRuntime();
    const collect = await allOutputs(runtime);
    const client = createClient({
      baseUrl: provider.url,
      style,
      model: "m",
      apiKey: `sk-${secret}`,
      headers: {
        Authorization: `Bearer ${secret}-auth`,
        "Proxy-Authorization": `Basic ${secret}-proxy`,
        Cookie: `session=${secret}-cookie`,
        "X-Api-Key": `${secret}-xkey`,
        "api-key": `${secret}-azure`,
        "anthropic-api-key": `${secret}-anthropic`,
        "x-goog-api-key": `${secret}-goog`,
        // custom and gateway auth headers: no list of "credential" names could know them all
        "x-auth-token": `${secret}-token`,
        "x-client-secret": `${secret}-client`,
        "x-portkey-api-key": `${secret}-portkey`,
        "helicone-auth": `Bearer ${secret}-helicone`,
        "ocp-apim-subscription-key": `${secret}-apim`,
        "set-cookie": `id=${secret}-setcookie`,
        "x-acme-gateway-pass": `${secret}-acme`,
        "x-request-tag": "tag-value-kept-out",
        "user-agent": "canary-agent/1.0",
      },
      runtime,
      retryBaseMs: 1,
    });
    const result = await client.run("say hi", { toolkit: await createToolkit({ tools: [echo] }) });
    expect(result.status).toBe("done");
    // the secret really was sent to the provider…
    expect(JSON.stringify(provider.requests[0]!.headers)).toContain(secret);
    // …and never written anywhere
    const { text } = await collect();
    expect(text).not.toContain(secret);
    // allow-listed headers keep their value; any other header keeps its name and loses its value
    expect(text).toContain("canary-agent/1.0");
    expect(text).toContain("x-request-tag");
    expect(text).not.toContain("tag-value-kept-out");
  });

  it("a provider error that echoes the key does not carry it into the error span, ATOF or diagnostics", async () => {
    const secret = `canary${randomBytes(12).toString("hex")}`;
    const provider = await startProvider([{ status: 401, json: { error: { message: `Incorrect API key provided: sk-${secret}` } } }]);
    cleanups.push(provider.close);
    const runtime = createRuntime();
    const collect = await allOutputs(runtime);
    const client = createClient({ baseUrl: provider.url, style, model: "m", apiKey: `sk-${secret}`, runtime, retries: 0, retryBaseMs: 1 });
    const run = client.run("hi", { toolkit: await createToolkit({}) });
    await expect(run).rejects.toThrow(/401/);
    const { text } = await collect();
    expect(text).not.toContain(secret);
  });
});

describe("one redaction sanitizer covers every exporter and projection", () => {
  it("an email canary in prompt, tool args, result, annotation and model reply is absent from all outputs", async () => {
    const canary = `canary.${randomBytes(6).toString("hex")}@example.com`;
    const provider = await startProvider([
      reply("openai", `writing to ${canary}`, [{ id: "c1", name: "echo", arguments: JSON.stringify({ text: canary }) }]),
      reply("openai", `sent to ${canary}`),
    ]);
    cleanups.push(provider.close);
    const runtime = createRuntime();
    redactPII({ mode: "hash" }).register(runtime);
    const collect = await allOutputs(runtime);
    const client = createClient({ baseUrl: provider.url, style: "openai", model: "m", apiKey: "sk-x", runtime, retryBaseMs: 1 });
    const result = await client.run(`please email ${canary}`, { toolkit: await createToolkit({ tools: [echo] }) });
    // the app is untouched
    expect(result.text).toBe(`sent to ${canary}`);
    expect(result.toolCalls[0]!.output).toBe(`echo: ${canary}`);
    const { text, otlp, atof } = await collect();
    expect(text).not.toContain(canary);
    // the data did flow, in redacted form, through each output
    expect(atof).toMatch(/\[email:[0-9a-f]{12}\]/);
    for (const body of otlp) expect(body).toMatch(/\[email:[0-9a-f]{12}\]/);
    // hash mode: the same address gives the same token throughout the run
    expect(new Set(atof.match(/\[email:[0-9a-f]{12}\]/g)).size).toBe(1);
  });
});
