import { afterEach, describe, expect, it } from "vitest";
import { createRuntime } from "../../src/runtime/runtime.js";
import type { AtofEvent } from "../../src/events/types.js";
import { createClient, createToolkit, relayAnswer, relayTool, type Request } from "../../src/agent/index.js";
import { reply, startProvider } from "../support/agent-provider-server.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

function summary(e: AtofEvent): string {
  return e.kind === "scope" ? `${e.category}:${e.scope_category}:${e.name}` : `mark:${e.name}`;
}

async function setup(
  waitFor?: (req: Request) => Promise<{ id: string; ok: boolean; data?: Record<string, unknown> }>,
  traceIds: string[] = [],
) {
  const srv = await startProvider([reply("openai", "", [{ id: "c1", name: "lookup", arguments: '{"q":"w"}' }]), reply("openai", "sunny")]);
  closers.push(srv.close);
  const runtime = createRuntime();
  const events: AtofEvent[] = [];
  runtime.subscribe("capture", (e) => void events.push(e));
  const client = createClient({
    baseUrl: srv.url,
    style: "openai",
    model: "stub",
    apiKey: "sk-secret-123",
    runtime,
    retryBaseMs: 1,
    ...(waitFor ? { waitFor } : {}),
    // beforeLLM runs inside the agent scope: it sees the run's trace id
    hooks: { beforeLLM: () => void traceIds.push(runtime.captureTraceparent().split("-")[1]!) },
  });
  const toolkit = await createToolkit({ tools: [relayTool("lookup", "look up")] });
  return { srv, runtime, events, client, toolkit };
}

describe("agent loop events", () => {
  it("a two-turn run with a relay call resolved by waitFor emits the documented stream, event by event", async () => {
    const { runtime, events, client, toolkit } = await setup(async (req) => ({ id: req.id, ok: true, data: { output: "sunny, 31C" } }));
    const res = await client.run("weather?", { toolkit });
    await runtime.flush();
    expect(events.map(summary)).toEqual([
      "agent:start:agent",
      "llm:start:openai.chat_completions",
      "llm:end:openai.chat_completions",
      "tool:start:lookup",
      "tool:end:lookup",
      "mark:tool.pending",
      "mark:tool.answer",
      "tool:start:lookup",
      "tool:end:lookup",
      "llm:start:openai.chat_completions",
      "llm:end:openai.chat_completions",
      "agent:end:agent",
    ]);
    const [agentStart, llmStart, llmEnd, toolStart, toolEnd, pendingMark, answerMark, retryStart, retryEnd, , , agentEnd] =
      events as AtofEvent[] & { length: 12 };
    // no credential anywhere in the recorded stream
    expect(JSON.stringify(events)).not.toContain("sk-secret-123");
    // the credential header is recorded by name only
    expect(JSON.stringify(events)).toMatch(/"authorization":"\[redacted\]"/i);

    expect(agentStart.uuid).toBe(res.runUuid);
    expect(agentStart.data).toEqual({ prompt: "weather?" });
    expect(llmStart.parent_uuid).toBe(agentStart.uuid);
    expect(llmStart.category_profile).toEqual({ model_name: "stub" });
    expect(llmStart.metadata).toMatchObject({ turn: 0, server_address: "127.0.0.1" });
    expect(llmEnd.uuid).toBe(llmStart.uuid);

    expect(toolStart.parent_uuid).toBe(agentStart.uuid);
    expect(toolStart.kind === "scope" && toolStart.attributes).toEqual(["remote"]);
    expect(toolStart.category_profile).toEqual({ tool_call_id: "c1" });
    expect(toolStart.metadata).toEqual({ turn: 0, tool_source: "relay", tool_type: "function", tool_description: "look up" });
    expect(toolStart.data).toEqual({ q: "w" });

    const pendingProfile = toolEnd.category_profile as unknown as { tool_result_annotation: { pending: Request } };
    expect(pendingProfile.tool_result_annotation.pending).toMatchObject({
      kind: "tool_call",
      data: { calls: [{ id: "c1", name: "lookup", arguments: '{"q":"w"}' }] },
    });
    expect((toolEnd.metadata as Record<string, unknown>)["otel.status_code"]).toBe("OK");

    expect(pendingMark.parent_uuid).toBe(toolStart.uuid);
    expect(pendingMark.category).toBe("tool");
    expect(pendingMark.category_profile).toEqual({ tool_call_id: "c1" });
    expect(pendingMark.data_schema).toEqual({ name: "relaytrace.pending_request", version: "1" });
    expect(pendingMark.data).toEqual(pendingProfile.tool_result_annotation.pending);

    const requestId = pendingProfile.tool_result_annotation.pending.id;
    expect(answerMark.parent_uuid).toBe(toolStart.uuid);
    expect(answerMark.data).toEqual({ id: requestId, ok: true });

    expect(retryStart.category_profile).toEqual({ tool_call_id: "c1" });
    expect(retryStart.metadata).toMatchObject({ "relaytrace.retry_of": toolStart.uuid });
    expect(retryEnd.data).toEqual({ output: "sunny, 31C", isError: false });
    expect(retryEnd.category_profile).toEqual({ tool_call_id: "c1" });

    expect(agentEnd.uuid).toBe(agentStart.uuid);
    expect(agentEnd.data).toEqual({
      status: "done",
      text: "sunny",
      turns: 2,
      toolCallCount: 1,
      usage: { promptTokens: 8, completionTokens: 4, totalTokens: 12 },
    });
    expect((agentEnd.metadata as Record<string, unknown>)["otel.status_code"]).toBe("OK");
  });

  it("a durable halt ends every scope; the resumed run continues the same trace under the halted agent", async () => {
    const traceIds: string[] = [];
    const { runtime, events, client, toolkit } = await setup(undefined, traceIds);
    const halted = await client.run("weather?", { toolkit });
    await runtime.flush();
    expect(events.map(summary)).toEqual([
      "agent:start:agent",
      "llm:start:openai.chat_completions",
      "llm:end:openai.chat_completions",
      "tool:start:lookup",
      "tool:end:lookup",
      "mark:tool.pending",
      "agent:end:agent",
    ]);
    const haltedAgent = events[0]!;
    const haltedEnd = events[6]!;
    expect(haltedEnd.data).toMatchObject({
      status: "pending",
      turns: 1,
      toolCallCount: 1,
      pending: { id: halted.pending!.id, kind: "tool_call" },
    });
    const ctx = halted.pending!.data!.traceContext as { version: number; root_uuid?: string; parent_uuid: string };
    expect(ctx).toMatchObject({ version: 1, parent_uuid: haltedAgent.uuid });

    events.length = 0;
    const resumed = await client.runWithAnswer({
      toolkit,
      history: halted.messages,
      pending: halted.pending!,
      answer: relayAnswer(halted.pending!.id, [{ id: "c1", output: "sunny, 31C" }]),
      halt: halted.halt!,
    });
    await runtime.flush();
    expect(resumed.text).toBe("sunny");
    expect(events.map(summary)).toEqual([
      "agent:start:agent",
      "llm:start:openai.chat_completions",
      "llm:end:openai.chat_completions",
      "agent:end:agent",
    ]);
    const resumedAgent = events[0]!;
    expect(resumedAgent.parent_uuid).toBe(haltedAgent.uuid);
    expect(resumedAgent.data).toEqual({ resume: halted.pending!.id });
    // The resumed run's root records which trace it continues, so its file alone says so.
    expect(resumedAgent.metadata).toEqual({
      "relaytrace.resume_of": halted.pending!.id,
      "relaytrace.trace_link": { root_uuid: ctx.root_uuid },
    });
    // one trace id across halt and resume
    expect(traceIds).toHaveLength(2);
    expect(traceIds[1]).toBe(traceIds[0]);
    expect(ctx.root_uuid?.replace(/-/g, "")).toBe(traceIds[0]);
  });
});
