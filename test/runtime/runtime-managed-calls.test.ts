import { describe, expect, it } from "vitest";
import { GuardrailRejectedError } from "../../src/runtime/errors.js";
import type { ScopeEvent } from "../../src/events/types.js";
import { capturingRuntime, labels, marks, scopes } from "../support/capture.js";

const request = { headers: { "content-type": "application/json" }, content: { model: "m", messages: [{ role: "user", content: "hi" }] } };
const reply = async () => ({ choices: [{ message: { role: "assistant", content: "hello" } }] });

describe("managed LLM calls follow the tool skeleton", () => {
  it("an allowing LLM guardrail emits a guardrail scope pair before the llm scope, without the request", async () => {
    const { rt, settle } = capturingRuntime();
    let seen: unknown;
    rt.registerLlmConditionalGuardrail("no-secrets", 1, (_name, req) => {
      seen = req.content;
      return null;
    });
    await rt.executeLlm("openai.chat_completions", request, reply);
    const events = await settle();
    expect(labels(events)).toEqual([
      "start:guardrail:no-secrets",
      "end:guardrail:no-secrets",
      "start:llm:openai.chat_completions",
      "end:llm:openai.chat_completions",
    ]);
    expect(seen).toEqual(request.content);
    const [start, end] = scopes(events) as [ScopeEvent, ScopeEvent];
    expect(start.data).toEqual({ kind: "llm_conditional_execution", target_name: "openai.chat_completions" });
    expect(end.data).toEqual({ allowed: true, rejected: false });
    expect(JSON.stringify(events.slice(0, 2))).not.toContain("hi");
  });

  it("a rejecting LLM guardrail emits the pair and a rejection mark named after the call, and no llm scope", async () => {
    const { rt, settle } = capturingRuntime();
    let called = false;
    rt.registerLlmConditionalGuardrail("budget", 1, () => "over budget");
    const failure = await rt.executeLlm("openai.chat_completions", request, async () => ((called = true), {})).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(GuardrailRejectedError);
    expect(called).toBe(false);
    const events = await settle();
    expect(labels(events)).toEqual(["start:guardrail:budget", "end:guardrail:budget", "mark:openai.chat_completions"]);
    expect(scopes(events)[1]!.data).toEqual({ allowed: false, rejected: true, rejection_reason: "over budget" });
    expect(marks(events)[0]!.data).toEqual({ rejected: true, rejection_reason: "over budget" });
  });

  it("a throwing LLM guardrail fails closed: the pair records the error, the call never runs", async () => {
    const { rt, settle } = capturingRuntime();
    rt.registerLlmConditionalGuardrail("broken", 1, () => {
      throw new Error("policy store down");
    });
    await expect(rt.executeLlm("anthropic.messages", request, reply)).rejects.toThrow("policy store down");
    const events = await settle();
    expect(labels(events)).toEqual(["start:guardrail:broken", "end:guardrail:broken"]);
    expect(scopes(events)[1]!.data).toEqual({ allowed: false, error: "policy store down" });
  });

  it("a cancelled executeLlm ends with 'llm call cancelled', a cancelled executeTool with 'tool execution cancelled'", async () => {
    const { rt, settle } = capturingRuntime();
    const llmAbort = new AbortController();
    const llm = rt.executeLlm("openai.chat_completions", request, () => new Promise(() => {}), { signal: llmAbort.signal });
    const toolAbort = new AbortController();
    const tool = rt.executeTool("slow", {}, () => new Promise(() => {}), { signal: toolAbort.signal });
    llmAbort.abort(new Error("user stopped the model"));
    toolAbort.abort(new Error("user stopped the tool"));
    await expect(llm).rejects.toThrow("user stopped the model");
    await expect(tool).rejects.toThrow("user stopped the tool");
    const ends = scopes(await settle()).filter((e) => e.scope_category === "end");
    const byName = Object.fromEntries(ends.map((e) => [e.name, e.metadata]));
    expect(byName["openai.chat_completions"]).toEqual({ "otel.status_code": "ERROR", "otel.status_description": "llm call cancelled" });
    expect(byName["slow"]).toEqual({ "otel.status_code": "ERROR", "otel.status_description": "tool execution cancelled" });
  });

  it("the traceparent sent to the provider is the one captureTraceparent() gives inside the call", async () => {
    const { rt, settle } = capturingRuntime();
    let sent: unknown;
    let captured = "";
    await rt.withScope(
      "agent",
      async () => {
        await rt.executeLlm("openai.chat_completions", { headers: { TraceParent: "00-stale-stale-00" }, content: {} }, async (req) => {
          sent = req.headers;
          captured = rt.captureTraceparent();
          return {};
        });
      },
      { category: "agent" },
    );
    const events = await settle();
    const llm = scopes(events).find((e) => e.category === "llm")!;
    const agent = scopes(events).find((e) => e.category === "agent")!;
    expect(sent).toEqual({ traceparent: captured });
    expect(captured).toBe(`00-${agent.uuid.replace(/-/g, "")}-${llm.uuid.replace(/-/g, "").slice(16)}-01`);
  });
});
