import { describe, expect, it } from "vitest";
import { createRuntime } from "../../src/runtime/runtime.js";
import type { AtofEvent } from "../../src/events/types.js";
import { createClient, createToolkit, relayTool, type Request } from "../../src/agent/index.js";
import { scriptedProviders } from "../support/scripted-providers.js";

const provider = scriptedProviders();

describe("in-process relay answers are checked", () => {
  const lookupSchema = { type: "object", properties: { q: { type: "string" } }, required: ["q"] };

  it("a waitFor answer with another request's id rejects the run, and every scope still ends", async () => {
    const p = await provider([{ toolCalls: [{ id: "c1", name: "lookup", arguments: { q: "w" } }] }, { text: "unreachable" }]);
    const runtime = createRuntime();
    const events: AtofEvent[] = [];
    runtime.subscribe("capture", (e) => void events.push(e));
    let pendingId = "";
    const client = createClient({
      baseUrl: p.url,
      style: "openai",
      model: "m",
      apiKey: "k",
      runtime,
      retryBaseMs: 1,
      waitFor: async (req: Request) => {
        pendingId = req.id;
        return { id: "someone-else", ok: true, data: { output: "wrong call's output" } };
      },
    });
    const toolkit = await createToolkit({ tools: [relayTool("lookup", "look up", lookupSchema)] });
    const failure = await client.run("go", { toolkit }).then(
      () => undefined,
      (e: unknown) => e,
    );
    await runtime.flush();
    expect(pendingId).not.toBe("");
    expect((failure as Error).message).toBe(`waitFor answered request "someone-else" but the pending request is "${pendingId}"`);
    // the mismatched answer was never fed to the model
    expect(p.requests).toHaveLength(1);
    const starts = events
      .filter((e) => e.kind === "scope" && e.scope_category === "start")
      .map((e) => e.uuid)
      .sort();
    const ends = events
      .filter((e) => e.kind === "scope" && e.scope_category === "end")
      .map((e) => e.uuid)
      .sort();
    expect(starts.length).toBeGreaterThanOrEqual(3); // agent + llm + tool
    expect(ends).toEqual(starts);
  });

  it("a relay answer with no result for the call becomes an error result, not an empty success", async () => {
    const p = await provider([{ toolCalls: [{ id: "c1", name: "lookup", arguments: { q: "w" } }] }, { text: "done" }]);
    const client = createClient({
      baseUrl: p.url,
      style: "openai",
      model: "m",
      apiKey: "k",
      runtime: createRuntime(),
      retryBaseMs: 1,
      waitFor: async (req) => ({ id: req.id, ok: true, data: { results: [{ id: "not-c1", output: "other" }] } }),
    });
    const toolkit = await createToolkit({ tools: [relayTool("lookup", "look up", lookupSchema)] });
    const res = await client.run("go", { toolkit });
    expect(res.status).toBe("done");
    expect(res.toolCalls[0]).toMatchObject({ name: "lookup", output: "no result supplied for lookup", isError: true });
    const sent = (p.requests[1]!.body as { messages: { role: string; content: string }[] }).messages.at(-1);
    expect(sent).toMatchObject({ role: "tool", content: "no result supplied for lookup" });
  });

  it("relay arguments that fail the schema are an error result naming the path, with no suspension", async () => {
    const p = await provider([{ toolCalls: [{ id: "c1", name: "lookup", arguments: { q: 42 } }] }, { text: "fixed it" }]);
    let waited = 0;
    const client = createClient({
      baseUrl: p.url,
      style: "openai",
      model: "m",
      apiKey: "k",
      runtime: createRuntime(),
      retryBaseMs: 1,
      waitFor: async (req) => (waited++, { id: req.id, ok: true, data: { output: "should not be asked" } }),
    });
    const toolkit = await createToolkit({ tools: [relayTool("lookup", "look up", lookupSchema)] });
    const res = await client.run("go", { toolkit });
    expect(waited).toBe(0);
    expect(res.status).toBe("done");
    expect(res.toolCalls[0]!.isError).toBe(true);
    expect(res.toolCalls[0]!.output).toMatch(/^invalid arguments for lookup: \/q /);
  });

  it("without waitFor, invalid relay arguments do not halt the run either", async () => {
    const p = await provider([{ toolCalls: [{ id: "c1", name: "lookup", arguments: {} }] }, { text: "ok" }]);
    const client = createClient({ baseUrl: p.url, style: "openai", model: "m", apiKey: "k", runtime: createRuntime(), retryBaseMs: 1 });
    const toolkit = await createToolkit({ tools: [relayTool("lookup", "look up", lookupSchema)] });
    const res = await client.run("go", { toolkit });
    expect(res.status).toBe("done");
    expect(res.pending).toBeUndefined();
    expect(res.toolCalls[0]!.output).toContain("invalid arguments for lookup");
  });
});
