import { afterEach, describe, expect, it } from "vitest";
import { createClient, createToolkit } from "../../src/agent/index.js";
import type { AtofEvent } from "../../src/events/types.js";
import { createRuntime } from "../../src/runtime/runtime.js";
import { add, startCollector, type FaultCollector } from "../support/fault-collector.js";

const RUNS = 100;
const servers: FaultCollector[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe("100 concurrent runs sharing one runtime", () => {
  it("no cross-talk of parents, every start has exactly one end, ids unique", async () => {
    // The provider answers each run from its own transcript: first a tool call add(i, 1000), then the tool's output as text.
    const server = await startCollector((_i, _req, res, body) => {
      const messages = (JSON.parse(body) as { messages: { role: string; content: string | null }[] }).messages;
      const run = Number(/run (\d+)/.exec(messages.find((m) => m.role === "user")!.content!)![1]);
      const toolMsg = messages.find((m) => m.role === "tool");
      const message = toolMsg
        ? { role: "assistant", content: `run ${run} got ${toolMsg.content}` }
        : {
            role: "assistant",
            content: null,
            tool_calls: [
              { id: `call_${run}`, type: "function", function: { name: "add", arguments: JSON.stringify({ a: run, b: 1000 }) } },
            ],
          };
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          model: "m",
          choices: [{ index: 0, finish_reason: toolMsg ? "stop" : "tool_calls", message }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
      );
    }, "/");
    servers.push(server);
    const runtime = createRuntime({ maxQueueSize: 100_000 });
    const events: AtofEvent[] = [];
    runtime.subscribe("capture", (e) => void events.push(e));
    const client = createClient({ baseUrl: server.url.replace(/\/$/, ""), style: "openai", model: "m", apiKey: "sk-x", runtime });
    const toolkit = await createToolkit({ tools: [add] });

    const results = await Promise.all(Array.from({ length: RUNS }, (_, i) => client.run(`run ${i}`, { toolkit })));
    await runtime.flush();

    results.forEach((r, i) => {
      expect(r.status).toBe("done");
      expect(r.text).toBe(`run ${i} got ${i + 1000}`);
      expect(r.toolCalls).toEqual([{ id: `call_${i}`, name: "add", args: { a: i, b: 1000 }, output: String(i + 1000), isError: false }]);
    });

    const starts = events.filter((e) => e.kind === "scope" && e.scope_category === "start");
    const ends = events.filter((e) => e.kind === "scope" && e.scope_category === "end");
    const marks = events.filter((e) => e.kind === "mark");
    // every start has exactly one end
    const endCount = new Map<string, number>();
    for (const e of ends) endCount.set(e.uuid, (endCount.get(e.uuid) ?? 0) + 1);
    expect(starts.length).toBe(ends.length);
    for (const s of starts) expect(endCount.get(s.uuid)).toBe(1);
    // ids unique
    expect(new Set(starts.map((e) => e.uuid)).size).toBe(starts.length);
    expect(new Set(marks.map((e) => e.uuid)).size).toBe(marks.length);
    expect(starts.filter((e) => e.category === "agent")).toHaveLength(RUNS);
    expect(starts.filter((e) => e.category === "llm")).toHaveLength(2 * RUNS);
    expect(starts.filter((e) => e.category === "tool")).toHaveLength(RUNS);

    // no cross-talk: every llm and tool scope sits under the agent scope of its own run
    const byUuid = new Map(starts.map((e) => [e.uuid, e]));
    const agentOf = (e: AtofEvent): AtofEvent | undefined => {
      let cur: AtofEvent | undefined = e;
      while (cur && cur.category !== "agent") cur = cur.parent_uuid ? byUuid.get(cur.parent_uuid) : undefined;
      return cur;
    };
    const runOfAgent = (agent: AtofEvent) => Number(/run (\d+)/.exec(JSON.stringify(agent.data))![1]);
    for (const tool of starts.filter((e) => e.category === "tool")) {
      const agent = agentOf(tool)!;
      expect(agent).toBeDefined();
      expect(runOfAgent(agent)).toBe((tool.data as { a: number }).a);
      expect(tool.category_profile?.tool_call_id).toBe(`call_${runOfAgent(agent)}`);
    }
    for (const llm of starts.filter((e) => e.category === "llm")) {
      const agent = agentOf(llm)!;
      expect(JSON.stringify(llm.data)).toContain(`"run ${runOfAgent(agent)}"`);
    }
    // Nothing went wrong but the made-up model "m": each of its calls is counted as unpriced.
    expect(runtime.diagnostics()).toEqual([expect.objectContaining({ code: "llm.unpriced_model", count: 2 * RUNS })]);
  });
});
