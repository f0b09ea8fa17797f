// Cloudflare Workers has AsyncLocalStorage.run but no working enterWith (it throws "not
// implemented"). Here Node's enterWith throws the same way while the runtime's own test files run
// again, imported below: scopes, managed tool and LLM calls, streams, suspension, propagation and
// run contexts behave as they do with enterWith. pushScope/popScope then change the current
// context's stack in place (docs/runtimes.md): the tests at the end pin what that means for
// concurrent requests.
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import type { ScopeEvent } from "../../src/events/types.js";
import { capturingRuntime, scopes } from "../support/capture.js";
import { textServer } from "../support/text-server.js";
// @ts-expect-error a plain ES module without types, shared with the core suite's preload
import { restoreEnterWith } from "./throwing-enter-with.mjs";

afterAll(restoreEnterWith);

// Test hook: the files below run in one module graph here, so work outside any scope starts each
// test on a fresh default stack, as it does when each file runs on its own.
const shared = (globalThis as unknown as Record<symbol, { defaultContext: unknown }>)[Symbol.for("relaytrace.scopeStack")];
beforeEach(() => {
  if (shared) shared.defaultContext = undefined;
});

await import("../runtime/runtime-scopes.test.js");
await import("../runtime/runtime-managed-calls.test.js");
await import("../runtime/runtime-tools.test.js");
await import("../runtime/runtime-propagation-context.test.js");
await import("../runtime/runtime-run-context.test.js");
await import("../runtime/runtime-llm-stream.test.js");
await import("../runtime/runtime-suspension.test.js");
await import("../runtime/runtime-llm-propagation.test.js");

const listen = textServer();

function startsByName(events: readonly ScopeEvent[]): Map<string, ScopeEvent> {
  return new Map(events.filter((e) => e.scope_category === "start").map((e) => [e.name, e] as [string, ScopeEvent]));
}

describe("pushScope without enterWith", () => {
  it("keeps concurrent requests apart when each request runs in its own withScope", async () => {
    const { rt, settle } = capturingRuntime();
    let arrived = 0;
    let release!: () => void;
    const both = new Promise<void>((resolve) => (release = resolve));
    const url = await listen((path) =>
      rt.withScope(`request ${path}`, async () => {
        const step = rt.pushScope(`step ${path}`);
        // Both requests hold their pushed scope open at once before either runs its tool.
        if (++arrived === 2) release();
        await both;
        await rt.executeTool(`tool ${path}`, {}, () => ({ result: path }));
        rt.popScope(step);
        await rt.executeTool(`after ${path}`, {}, () => ({ result: path }));
        return "ok";
      }),
    );
    const replies = await Promise.all([fetch(`${url}/a`), fetch(`${url}/b`)]);
    expect(replies.map((r) => r.status)).toEqual([200, 200]);
    const starts = startsByName(scopes(await settle()));
    for (const path of ["/a", "/b"]) {
      expect(starts.get(`step ${path}`)!.parent_uuid).toBe(starts.get(`request ${path}`)!.uuid);
      expect(starts.get(`tool ${path}`)!.parent_uuid).toBe(starts.get(`step ${path}`)!.uuid);
      expect(starts.get(`after ${path}`)!.parent_uuid).toBe(starts.get(`request ${path}`)!.uuid);
    }
  });

  it("a pushed scope is current after awaits; popping it restores the outer scope; it never outlives a withScope body", async () => {
    const { rt, settle } = capturingRuntime();
    await rt.withScope("outer", async () => {
      const first = rt.pushScope("first");
      await Promise.resolve();
      await rt.executeTool("inside-first", {}, () => ({ result: 1 }));
      rt.popScope(first);
      await rt.executeTool("after-first", {}, () => ({ result: 2 }));
      await rt.withScope("body", () => {
        rt.pushScope("left-open-in-body");
      });
      await rt.executeTool("after-body", {}, () => ({ result: 3 }));
    });
    const starts = startsByName(scopes(await settle()));
    const outer = starts.get("outer")!.uuid;
    expect(starts.get("inside-first")!.parent_uuid).toBe(starts.get("first")!.uuid);
    expect(starts.get("after-first")!.parent_uuid).toBe(outer);
    expect(starts.get("after-body")!.parent_uuid).toBe(outer);
  });

  it("outside any scope, a pushed scope is the parent of work outside scopes until it is popped", async () => {
    const { rt, settle } = capturingRuntime();
    const top = rt.pushScope("top", { category: "agent" });
    await rt.executeTool("inside", {}, () => ({ result: 1 }));
    rt.popScope(top);
    await rt.executeTool("outside", {}, () => ({ result: 2 }));
    const starts = startsByName(scopes(await settle()));
    expect(starts.get("inside")!.parent_uuid).toBe(top.uuid);
    expect(starts.get("outside")!.parent_uuid).toBe(top.parentUuid);
  });
});
