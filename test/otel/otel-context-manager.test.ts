// Which OpenTelemetry context manager relaytrace's callbacks run under is looked up per call: an
// app that registers its manager (or replaces it, or removes it) after relaytrace has run calls
// gets the relaytrace span as the active span from its next call on.
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { afterEach, describe, expect, it } from "vitest";
import { spanIdOf } from "../../src/events/uuid.js";
import { capturingRuntime, scopes } from "../support/capture.js";

afterEach(() => {
  context.disable();
});

/** Runs one tool call; returns the span id active inside it and the tool's own span id. */
async function toolRun(
  rt: ReturnType<typeof capturingRuntime>["rt"],
  settle: () => Promise<unknown>,
  events: Parameters<typeof scopes>[0],
) {
  const before = events.length;
  const { result } = await rt.executeTool("lookup", { q: 1 }, async () => ({
    result: trace.getActiveSpan()?.spanContext().spanId ?? null,
  }));
  await settle();
  const start = scopes(events.slice(before)).find((e) => e.category === "tool" && e.scope_category === "start")!;
  return { active: result, own: spanIdOf(start.uuid) };
}

describe("the OpenTelemetry context manager", () => {
  it("is picked up when the app registers it after calls ran, replaced, and left when it is removed", async () => {
    context.disable();
    const { rt, events, settle } = capturingRuntime();

    const without = await toolRun(rt, settle, events);
    expect(without.active).toBeNull();

    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    const registered = await toolRun(rt, settle, events);
    expect(registered.active).toBe(registered.own);

    context.disable();
    const removed = await toolRun(rt, settle, events);
    expect(removed.active).toBeNull();

    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    const again = await toolRun(rt, settle, events);
    expect(again.active).toBe(again.own);
  });

  it("runs the tool's value and events the same with or without a manager", async () => {
    const { rt, events, settle } = capturingRuntime();
    const bare = await rt.executeTool("lookup", { q: 1 }, () => ({ result: { ok: true } }));
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    const managed = await rt.executeTool("lookup", { q: 1 }, () => ({ result: { ok: true } }));
    await settle();
    expect(managed).toEqual(bare);
    const tools = scopes(events).filter((e) => e.category === "tool");
    expect(tools.map((e) => [e.scope_category, e.data])).toEqual([
      ["start", { q: 1 }],
      ["end", { ok: true }],
      ["start", { q: 1 }],
      ["end", { ok: true }],
    ]);
  });
});
