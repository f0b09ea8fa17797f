import { afterEach, describe, expect, it } from "vitest";
import { createRuntime } from "../../src/runtime/runtime.js";
import type { AtofEvent } from "../../src/events/types.js";
import { createClient, createToolkit, defineTool, type Metric } from "../../src/agent/index.js";
import { reply, startProvider } from "../support/agent-provider-server.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

const echo = defineTool({ name: "echo", description: "", execute: (args) => `echo:${String(args.v)}` });

describe("hooks and metrics", () => {
  it("chains hooks: beforeTool rewrites flow on, the first {result} wins; afterTool is a pipeline; beforeLLM replaces messages", async () => {
    const srv = await startProvider([
      reply("openai", "", [
        { id: "c1", name: "echo", arguments: '{"v":1}' },
        { id: "c2", name: "echo", arguments: '{"v":"deny"}' },
      ]),
      reply("openai", "fin"),
    ]);
    closers.push(srv.close);
    const runtime = createRuntime();
    const events: AtofEvent[] = [];
    runtime.subscribe("capture", (e) => void events.push(e));
    const order: string[] = [];
    const client = createClient({
      baseUrl: srv.url,
      style: "openai",
      model: "stub",
      apiKey: "k",
      runtime,
      retryBaseMs: 1,
      hooks: [
        {
          beforeLLM: ({ messages, turn }) => (turn === 0 ? { messages: [...messages, { role: "user", content: "extra" }] } : undefined),
          beforeTool: ({ args }) =>
            args.v === "deny" ? { result: { output: "denied by policy", isError: true } } : { args: { v: Number(args.v) + 1 } },
          afterTool: ({ result }) => ({ result: { ...result, output: `${result.output}|a` } }),
        },
        {
          beforeTool: ({ args }) => {
            order.push(`second saw ${String(args.v)}`);
            return { result: { output: "never", isError: true } };
          },
          afterTool: ({ result }) => ({ result: { ...result, output: `${result.output}|b` } }),
        },
      ],
    });
    // the second slot's beforeTool short-circuits c1 (after the first rewrote its args); c2 stops at the first slot
    const res = await client.run("go", { toolkit: await createToolkit({ tools: [echo] }) });
    await runtime.flush();
    expect(order).toEqual(["second saw 2"]);
    expect(res.toolCalls.map((c) => c.output)).toEqual(["never", "denied by policy"]);
    const firstBody = srv.requests[0]!.body.messages as { content: string }[];
    expect(firstBody.at(-1)).toEqual({ role: "user", content: "extra" });
    const toolEnds = events.filter((e) => e.kind === "scope" && e.category === "tool" && e.scope_category === "end");
    expect(toolEnds.map((e) => (e.category_profile as Record<string, unknown>).tool_result_annotation)).toEqual([
      { short_circuit: "beforeTool" },
      { short_circuit: "beforeTool" },
    ]);
  });

  it("afterTool replaces results in order; onMetric reports llm, tool and run with correlation ids", async () => {
    const srv = await startProvider([reply("openai", "", [{ id: "c1", name: "echo", arguments: '{"v":1}' }]), reply("openai", "fin")]);
    closers.push(srv.close);
    const metrics: Metric[] = [];
    const client = createClient({
      baseUrl: srv.url,
      style: "openai",
      model: "stub",
      apiKey: "k",
      runtime: createRuntime(),
      retryBaseMs: 1,
      hooks: [
        { afterTool: ({ result }) => ({ result: { ...result, output: `${result.output}|a` } }) },
        { afterTool: ({ result }) => ({ result: { ...result, output: `${result.output}|b` } }) },
      ],
      onMetric: (m) => void metrics.push(m),
    });
    const res = await client.run("go", { toolkit: await createToolkit({ tools: [echo] }) });
    expect(res.toolCalls[0]!.output).toBe("echo:1|a|b");
    expect(metrics.map((m) => m.event)).toEqual(["llm", "tool", "llm", "run"]);
    for (const m of metrics) expect(m.runUuid).toBe(res.runUuid);
    expect(metrics[1]).toMatchObject({ tool: "echo", source: "native", isError: false, turn: 0, toolCallId: "c1" });
    expect(metrics[3]).toMatchObject({ event: "run", turns: 2, toolCalls: 1, totalTokens: 12 });
    const text = client.metrics();
    expect(text.endsWith("\n")).toBe(true);
    expect(text).toContain('toolnexus_llm_requests_total{model="stub",status="ok"} 2\n');
    expect(text).toContain('toolnexus_llm_tokens_total{type="completion"} 4\ntoolnexus_llm_tokens_total{type="prompt"} 8\n');
    expect(text).toContain('toolnexus_tool_calls_total{tool="echo",source="native",is_error="false",pending="false"} 1\n');
    expect(text).toContain('toolnexus_llm_request_duration_seconds_bucket{model="stub",le="+Inf"} 2\n');
    expect(text).toContain('toolnexus_llm_request_duration_seconds_count{model="stub"} 2\n');
    expect(text).toContain('toolnexus_tool_duration_seconds_count{tool="echo"} 1\n');
    // no run failed: the block is there, header only
    expect(text.endsWith("# HELP toolnexus_run_errors_total Total run errors.\n# TYPE toolnexus_run_errors_total counter\n")).toBe(true);
  });

  it("a hook error aborts the run", async () => {
    const srv = await startProvider([reply("openai", "x")]);
    closers.push(srv.close);
    const client = createClient({
      baseUrl: srv.url,
      style: "openai",
      model: "stub",
      apiKey: "k",
      runtime: createRuntime(),
      hooks: {
        beforeLLM: () => {
          throw new Error("hook says no");
        },
      },
    });
    await expect(client.run("go", { toolkit: await createToolkit({}) })).rejects.toThrow("hook says no");
    expect(srv.requests).toHaveLength(0);
  });
});
