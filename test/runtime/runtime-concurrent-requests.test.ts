// Concurrent inbound requests in one process: each request's trace context (the caller's sampled
// flag and tracestate, the manual scopes it pushes) belongs to that request's own async context,
// never to a table or a stack the process shares. A real HTTP server on 127.0.0.1 and the real
// OpenTelemetry SDK (SpanCapture).
import { describe, expect, it } from "vitest";
import { SpanCapture } from "../../exporters/testing/index.js";
import { extractTraceContext } from "../../src/index.js";
import type { ScopeEvent } from "../../src/events/types.js";
import { capturingRuntime, scopes } from "../support/capture.js";
import { textServer } from "../support/text-server.js";

/** A promise plus its resolver, to hold every request open until all have started. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

const listen = textServer();

describe("inbound trace context belongs to each request", () => {
  it("keeps every caller's sampled flag and tracestate with 6,000 requests in flight at once", async () => {
    // A queue long enough for every request's events (the default bound would drop some, by design).
    const { rt } = capturingRuntime({ maxQueueSize: 100_000 });
    const capture = new SpanCapture({ projection: "full" });
    capture.register(rt);
    const REQUESTS = 6000; // more than any table of recent contexts would hold
    const all = gate();
    let started = 0;
    const traceIdOf = (i: number) => (0x1000 + i).toString(16).padStart(32, "a");
    const runs = Array.from({ length: REQUESTS }, async (_, i) => {
      const sampled = i % 2 === 0;
      const ctx = extractTraceContext({
        traceparent: `00-${traceIdOf(i)}-00f067aa0ba902b7-${sampled ? "01" : "00"}`,
        tracestate: `caller=r${i}`,
      })!;
      await rt.withPropagation(ctx, () =>
        rt.withScope(
          `request-${i}`,
          async () => {
            // Every request has started (its context made) before any emits a child or ends.
            if (++started === REQUESTS) all.open();
            await all.opened;
            await rt.executeTool("work", { i }, () => ({ result: i }));
          },
          { category: "agent" },
        ),
      );
    });
    await Promise.all(runs);
    const spans = await capture.spans();
    // Only the sampled callers' requests are exported: a request and its tool each.
    expect(spans.length).toBe(REQUESTS);
    const requests = spans.filter((s) => s.name.startsWith("request-"));
    expect(requests.length).toBe(REQUESTS / 2);
    for (const span of requests) {
      const i = Number(span.name.slice("request-".length));
      expect(i % 2).toBe(0);
      expect(span.spanContext().traceId).toBe(traceIdOf(i));
      expect(span.spanContext().traceState?.serialize()).toBe(`caller=r${i}`);
      expect(span.parentSpanContext).toMatchObject({ traceId: traceIdOf(i), spanId: "00f067aa0ba902b7", isRemote: true });
    }
  });
});

describe("pushScope follows the async context", () => {
  it("two concurrent HTTP requests that push a scope each never share a parent", async () => {
    const { rt, settle } = capturingRuntime();
    const both = gate();
    let pushed = 0;
    const url = await listen(async (path) => {
      const scope = rt.pushScope(`request ${path}`, { category: "agent" });
      // Both requests hold their scope open at once before either runs its tool.
      if (++pushed === 2) both.open();
      await both.opened;
      await rt.executeTool(`tool ${path}`, {}, () => ({ result: path }));
      rt.popScope(scope);
      return "ok";
    });
    const replies = await Promise.all([fetch(`${url}/a`), fetch(`${url}/b`)]);
    expect(replies.map((r) => r.status)).toEqual([200, 200]);
    const events = scopes(await settle());
    const starts = new Map(events.filter((e) => e.scope_category === "start").map((e) => [e.name, e] as [string, ScopeEvent]));
    for (const path of ["/a", "/b"]) {
      expect(starts.get(`tool ${path}`)!.parent_uuid).toBe(starts.get(`request ${path}`)!.uuid);
      // Neither request scope is the other's child: both hang under the runtime's root.
      expect(starts.get(`request ${path}`)!.parent_uuid).toBe(starts.get(path === "/a" ? "request /b" : "request /a")!.parent_uuid);
    }
  });

  it("a pushed scope is current after awaits in the same function; popping it restores the outer scope", async () => {
    const { rt, settle } = capturingRuntime();
    await rt.withScope("outer", async () => {
      const first = rt.pushScope("first");
      await Promise.resolve();
      await rt.executeTool("inside-first", {}, () => ({ result: 1 }));
      rt.popScope(first);
      await rt.executeTool("after-first", {}, () => ({ result: 2 }));
      const second = rt.pushScope("second");
      rt.popScope(second);
    });
    const starts = new Map(
      scopes(await settle())
        .filter((e) => e.scope_category === "start")
        .map((e) => [e.name, e] as [string, ScopeEvent]),
    );
    const outer = starts.get("outer")!.uuid;
    expect(starts.get("first")!.parent_uuid).toBe(outer);
    expect(starts.get("inside-first")!.parent_uuid).toBe(starts.get("first")!.uuid);
    expect(starts.get("after-first")!.parent_uuid).toBe(outer);
    expect(starts.get("second")!.parent_uuid).toBe(outer);
  });

  it("a scope pushed inside a withScope body does not outlive the body", async () => {
    const { rt, settle } = capturingRuntime();
    await rt.withScope("body", () => {
      rt.pushScope("left-open-in-body");
    });
    await rt.executeTool("after-body", {}, () => ({ result: null }));
    const events = scopes(await settle());
    const afterBody = events.find((e) => e.name === "after-body")!;
    const body = events.find((e) => e.name === "body")!;
    expect(afterBody.parent_uuid).toBe(body.parent_uuid);
  });
});
