import { describe, expect, it } from "vitest";
import { createClient, createToolkit, defineTool, pending } from "../../src/agent/index.js";
import type { JsonObject } from "../../src/events/json.js";
import type { ScopeEvent } from "../../src/events/types.js";
import { capturingRuntime, labels, marks, scopes } from "../support/capture.js";
import { scriptedProviders } from "../support/scripted-providers.js";

const request: JsonObject = { id: "req-1", kind: "approval", prompt: "may I?" };

describe("suspension is an outcome of the managed tool lifecycle", () => {
  it("a callback returning { result, pending } ends the tool OK with the request in its annotation, then the runtime emits tool.pending", async () => {
    const { rt, settle } = capturingRuntime();
    const out = await rt.executeTool("pay", { amount: 5 }, () => ({ result: "waiting", annotation: { cost: 1 }, pending: request }), {
      toolCallId: "call_9",
    });
    expect(out).toEqual({ result: "waiting", annotation: { cost: 1 }, pending: request });
    const events = await settle();
    expect(labels(events)).toEqual(["start:tool:pay", "end:tool:pay", "mark:tool.pending"]);
    const end = scopes(events)[1] as ScopeEvent;
    expect(end.metadata).toEqual({ "otel.status_code": "OK" });
    expect(end.category_profile).toEqual({ tool_call_id: "call_9", tool_result_annotation: { cost: 1, pending: request } });
    const mark = marks(events)[0]!;
    expect(mark).toMatchObject({
      parent_uuid: end.uuid,
      category: "tool",
      category_profile: { tool_call_id: "call_9" },
      data: request,
      data_schema: { name: "relaytrace.pending_request", version: "1" },
    });
    expect(mark.timestamp > end.timestamp).toBe(true); // RFC 3339 with µs, same width: string order is time order
  });

  it("one outcome shape for every layer: a tool callback's own pendingMarks are emitted after its end, before the intercepts' marks, and never reach the caller", async () => {
    const { rt, settle } = capturingRuntime();
    rt.registerToolExecutionIntercept("audit", 1, async (args, next) => {
      const inner = await next(args);
      expect(inner).toEqual({ result: "ok" }); // a continuation resolves without the marks below it
      return { ...inner, pendingMarks: [{ name: "audit.seen" }] };
    });
    const out = await rt.executeTool("lookup", {}, () => ({ result: "ok", pendingMarks: [{ name: "cache.miss", data: { key: "k" } }] }));
    expect(out).toEqual({ result: "ok" });
    const events = await settle();
    expect(labels(events)).toEqual(["start:tool:lookup", "end:tool:lookup", "mark:cache.miss", "mark:audit.seen"]);
    expect(marks(events)[0]).toMatchObject({ parent_uuid: scopes(events)[1]!.uuid, data: { key: "k" } });
    // Without intercepts too; a bad spec fails the call with the field named.
    const direct = capturingRuntime();
    expect(await direct.rt.executeTool("t", {}, () => ({ result: 1, pendingMarks: [{ name: "m" }] }))).toEqual({ result: 1 });
    expect(labels(await direct.settle())).toEqual(["start:tool:t", "end:tool:t", "mark:m"]);
    await expect(direct.rt.executeTool("t", {}, () => ({ result: 1, pendingMarks: [{ nom: "m" }] as never }))).rejects.toThrow(
      /pendingMarks\[0\]: unknown field nom/,
    );
  });

  it("a manual endTool with a suspension or pending marks emits them like a managed call", async () => {
    const { rt, settle } = capturingRuntime();
    const handle = rt.startTool("pay", {}, { toolCallId: "call_1" });
    rt.endTool(handle, { result: "waiting", pending: request, pendingMarks: [{ name: "audit.seen" }] });
    const events = await settle();
    expect(labels(events)).toEqual(["start:tool:pay", "end:tool:pay", "mark:tool.pending", "mark:audit.seen"]);
    expect(marks(events)[0]).toMatchObject({ parent_uuid: handle.uuid, data: request });
  });

  it("the tool.pending mark comes before the marks of the intercepts around it (it is the innermost outcome)", async () => {
    const { rt, settle } = capturingRuntime();
    rt.registerToolExecutionIntercept("audit", 1, async (args, next) => ({
      ...(await next(args)),
      pendingMarks: [{ name: "audit.seen" }],
    }));
    await rt.executeTool("pay", {}, () => ({ result: null, pending: request }));
    expect(labels(await settle())).toEqual(["start:tool:pay", "end:tool:pay", "mark:tool.pending", "mark:audit.seen"]);
  });

  it("an execution intercept sees the suspension on next()'s result and may resolve it by dropping it", async () => {
    const { rt, settle } = capturingRuntime();
    rt.registerToolExecutionIntercept("auto-approve", 1, async (args, next) => {
      const r = await next(args);
      return r.pending ? { result: "approved automatically" } : r;
    });
    const out = await rt.executeTool("pay", {}, () => ({ result: "waiting", pending: request }));
    expect(out).toEqual({ result: "approved automatically" });
    const events = await settle();
    expect(labels(events)).toEqual(["start:tool:pay", "end:tool:pay"]);
    expect((scopes(events)[1] as ScopeEvent).category_profile).toEqual({});
  });

  it("a pending request that is not an object is an invalid result: an error end, no mark", async () => {
    const { rt, settle } = capturingRuntime();
    await expect(rt.executeTool("pay", {}, () => ({ result: 1, pending: "later" as never }))).rejects.toThrow(
      /pending request that is not an object/,
    );
    const events = await settle();
    expect(labels(events)).toEqual(["start:tool:pay", "end:tool:pay"]);
    expect((scopes(events)[1]!.metadata as JsonObject)["otel.status_code"]).toBe("ERROR");
  });
});

describe("the loop hands suspensions to the runtime", () => {
  const provider = scriptedProviders();

  it("a pending() tool in a run: no intercept is registered, the tool ends OK and the runtime's tool.pending carries the request", async () => {
    const p = await provider([{ toolCalls: [{ id: "c1", name: "approve", arguments: {} }] }]);
    const { rt, settle } = capturingRuntime();
    const seenByIntercepts: unknown[] = [];
    // Innermost, as the loop's own intercept used to be: it now sees the raw suspension.
    rt.registerToolExecutionIntercept("observer", Number.MAX_SAFE_INTEGER, async (args, next) => {
      const r = await next(args);
      seenByIntercepts.push(r.pending);
      return r;
    });
    const approve = defineTool({
      name: "approve",
      description: "asks",
      execute: () => pending({ id: "pnd-1", kind: "approval", prompt: "ok?" }),
    });
    const client = createClient({ baseUrl: p.url, style: "openai", model: "m", apiKey: "k", runtime: rt });
    const res = await client.run("go", { toolkit: await createToolkit({ tools: [approve] }) });
    expect(res.status).toBe("pending");
    expect(res.pending).toMatchObject({ id: "pnd-1", kind: "approval", prompt: "ok?" });
    expect(seenByIntercepts).toEqual([{ id: "pnd-1", kind: "approval", prompt: "ok?" }]);
    const events = await settle();
    const toolEnd = scopes(events).find((e) => e.category === "tool" && e.scope_category === "end")!;
    expect(toolEnd.category_profile).toMatchObject({ tool_call_id: "c1", tool_result_annotation: { pending: { id: "pnd-1" } } });
    const mark = marks(events).find((m) => m.name === "tool.pending")!;
    expect(mark.parent_uuid).toBe(toolEnd.uuid);
    expect(mark.data).toEqual({ id: "pnd-1", kind: "approval", prompt: "ok?" });
  });
});
