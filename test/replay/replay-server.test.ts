import { mkdtemp, rm, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AtofExporter } from "../../exporters/atof/atof-exporter.js";
import { startScriptedProvider } from "../../exporters/testing/scripted-provider.js";
import { createClient, createToolkit } from "../../src/agent/index.js";
import { createRuntime } from "../../src/runtime/runtime.js";
import { replayTools } from "../../src/replay/index.js";
import { parseAtof } from "../../src/events/atof-reader.js";
import { readFile } from "node:fs/promises";
import { recordRun, replayServers, weatherTool, WEATHER_TURNS } from "../support/recorded-run.js";

const replay = replayServers();

function post(url: string, path: string, body: unknown): Promise<Response> {
  return fetch(url + path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
}

describe("startReplayServer", () => {
  it("replays an ATOF file the file exporter wrote", async () => {
    const dir = await mkdtemp(join(tmpdir(), "relaytrace-replay-file-"));
    const provider = await startScriptedProvider({ style: "anthropic", turns: WEATHER_TURNS });
    const runtime = createRuntime();
    new AtofExporter({ type: "file", path: join(dir, "run.jsonl") }).register(runtime);
    const recorded = createClient({ baseUrl: provider.url, style: "anthropic", model: "m", apiKey: "k", runtime });
    const original = await recorded.run("Weather in Oslo?", { toolkit: await createToolkit({ tools: [weatherTool({ count: 0 })] }) });
    await runtime.shutdown();
    await provider.close();

    const server = await replay({ file: join(dir, "run.jsonl") });
    const events = parseAtof(await readFile(join(dir, "run.jsonl"), "utf8")).events;
    const client = createClient({ baseUrl: server.url, style: "anthropic", model: "m", apiKey: "k" });
    const result = await client.run("Weather in Oslo?", { toolkit: await createToolkit({ tools: replayTools(events) }) });
    expect(result.text).toBe(original.text);
    expect([server.served, server.mismatches]).toEqual([2, []]);
  });

  it("answers a request in another dialect than the recorded one with 409 naming both dialects", async () => {
    const recorded = await recordRun("openai");
    const server = await replay({ events: recorded.events });
    const res = await post(server.url, "/v1/messages", { model: "m", max_tokens: 10, messages: [{ role: "user", content: "hi" }] });
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({
      error: { type: "replay_mismatch", call: 0, path: "", expected: "openai", actual: "anthropic" },
    });
    expect((await post(server.url, "/v1/embeddings", {})).status).toBe(404);
    expect((await fetch(server.url + "/chat/completions", { method: "POST", body: "{not json" })).status).toBe(400);
  });

  it("serves a recorded failure again to a client's retry of the same request, after the last call too", async () => {
    const failure = { error: { type: "overloaded_error", message: "try later" } };
    const recorded = await recordRun("openai", "Weather in Oslo?", [{ status: 529, body: failure }], { retries: 0 });
    // The recording: one failed call. A retrying client sends it twice and sees the failure twice.
    const server = await replay({ events: recorded.events });
    const body = (recorded.events.find((e) => e.kind === "scope" && e.category === "llm")!.data as { content: unknown }).content;
    for (let attempt = 0; attempt < 2; attempt++) {
      const res = await post(server.url, "/chat/completions", body);
      expect(res.status).toBe(529);
      expect(await res.json()).toEqual(failure);
    }
    expect([server.served, server.mismatches]).toEqual([1, []]);
  });

  it("refuses a recording with no model calls or with responses withheld, saying so", async () => {
    await expect(replay({ events: [] })).rejects.toThrow(/no model \(llm\) calls/);
    const recorded = await recordRun("gemini");
    const withheld = recorded.events.map((e) =>
      e.kind === "scope" && e.category === "llm" && e.scope_category === "end" ? { ...e, data: null } : e,
    );
    await expect(replay({ events: withheld })).rejects.toThrow(/responses\/content are missing.*call 0/);
  });

  it("routes by the end of the path, whatever comes before it", async () => {
    const recorded = await recordRun("openai");
    const server = await replay({ events: recorded.events });
    const body = (recorded.events.find((e) => e.kind === "scope" && e.category === "llm")!.data as { content: unknown }).content;
    expect((await post(server.url, "/proxy/openai/v1/chat/completions/?x=1", body)).status).toBe(200);
    expect(server.served).toBe(1);
  });

  it("answers a recorded failure whose status is not an HTTP error with 502, saying the recorded call failed", async () => {
    const recorded = await recordRun("openai", "Weather in Oslo?", [{ status: 500, body: { error: { message: "down" } } }], { retries: 0 });
    const events = recorded.events.map((e) =>
      e.kind === "scope" && e.category === "llm" && e.scope_category === "end" ? { ...e, data: { status: 99999, body: "x" } } : e,
    );
    const server = await replay({ events });
    const body = (events.find((e) => e.kind === "scope" && e.category === "llm")!.data as { content: unknown }).content;
    const res = await post(server.url, "/chat/completions", body);
    expect(res.status).toBe(502);
    expect(await res.json()).toMatchObject({ error: { type: "replay_recorded_failure", call: 0 } });
  });

  it("reads a file's calls when they are served, and says so when the file changed under it", async () => {
    const recorded = await recordRun("openai");
    const dir = await mkdtemp(join(tmpdir(), "relaytrace-replay-changed-"));
    const path = join(dir, "run.jsonl");
    await writeFile(path, recorded.events.map((e) => JSON.stringify(e)).join("\n") + "\n");
    const server = await replay({ file: path });
    await truncate(path, 100);
    const body = (recorded.events.find((e) => e.kind === "scope" && e.category === "llm")!.data as { content: unknown }).content;
    const res = await post(server.url, "/chat/completions", body);
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({
      error: { type: "replay_error", message: expect.stringMatching(/recording file changed while replaying/) },
    });
    await rm(dir, { recursive: true, force: true });
  });
});
