import { describe, expect, it } from "vitest";
import type { AtofEvent } from "../../src/events/types.js";
import { RelaytraceError } from "../../src/runtime/errors.js";
import { createRuntime } from "../../src/runtime/runtime.js";
import { capturingRuntime, labels } from "../support/capture.js";

describe("registries", () => {
  it("runs ascending priority first, ties by name, global before scope-local, outer scope before inner", async () => {
    const { rt, settle } = capturingRuntime();
    const order: string[] = [];
    const note = (name: string) => (_e: AtofEvent, f: { data: unknown; categoryProfile: unknown; metadata: unknown }) => {
      order.push(name);
      return f as never;
    };
    rt.registerMarkSanitizer("g-b", 5, note("g-b"));
    rt.registerMarkSanitizer("g-a", 5, note("g-a"));
    rt.registerMarkSanitizer("g-first", 1, note("g-first"));
    await rt.withScope("outer", async (outer) => {
      rt.registerMarkSanitizer("outer-5", 5, note("outer-5"), { scope: outer });
      rt.registerMarkSanitizer("outer-0", 0, note("outer-0"), { scope: outer });
      await rt.withScope("inner", async (inner) => {
        rt.registerMarkSanitizer("inner-5", 5, note("inner-5"), { scope: inner });
        rt.mark("m");
      });
      rt.mark("after-inner");
    });
    rt.mark("after-outer");
    await settle();
    expect(order).toEqual([
      "outer-0",
      "g-first",
      "g-a",
      "g-b",
      "outer-5",
      "inner-5", // inside inner
      "outer-0",
      "g-first",
      "g-a",
      "g-b",
      "outer-5", // inner popped: its sanitizer is gone
      "g-first",
      "g-a",
      "g-b", // outer popped
    ]);
  });

  it("rejects a duplicate name and returns a remover", async () => {
    const { rt, settle } = capturingRuntime();
    const calls: string[] = [];
    const remove = rt.registerMetadataInjector("inj", 0, () => {
      calls.push("inj");
      return {};
    });
    let error: unknown;
    try {
      rt.registerMetadataInjector("inj", 1, () => ({}));
    } catch (e) {
      error = e;
    }
    expect((error as RelaytraceError).code).toBe("already_exists");
    rt.mark("one");
    await settle();
    expect(remove()).toBe(true);
    expect(remove()).toBe(false);
    rt.mark("two");
    await settle();
    expect(calls).toEqual(["inj"]);
  });
});

describe("event sanitizers", () => {
  it("replace data, categoryProfile and metadata; an omitted field is cleared; identity is immutable", async () => {
    const { rt, settle } = capturingRuntime();
    rt.registerMarkSanitizer("redact", 0, (event, fields) => {
      if ((event as { name: string }).name === "m") expect(Object.isFrozen(event)).toBe(true);
      return { data: { redacted: true }, metadata: fields.metadata };
    });
    rt.mark("m", { data: { secret: "s3cr3t" }, categoryProfile: { subtype: "x" }, category: "custom", metadata: { k: 1 } });
    const [m] = await settle();
    expect(m).toMatchObject({ name: "m", data: { redacted: true }, category_profile: null, metadata: { k: 1 }, category: "custom" });
  });

  it("fail closed: a throwing or invalid sanitizer clears the three fields and stops the chain", async () => {
    const { rt, settle } = capturingRuntime();
    const later: string[] = [];
    rt.registerScopeStartSanitizer("broken", 0, () => {
      throw new Error("bug");
    });
    rt.registerScopeStartSanitizer("later", 1, (_e, f) => {
      later.push("ran");
      return f;
    });
    rt.registerMarkSanitizer("garbage", 0, () => 42 as never);
    rt.registerScopeEndSanitizer("empty", 0, () => ({}) as never);
    await rt.withScope("s", () => rt.mark("m", { data: { secret: 1 } }), { input: { secret: 2 }, metadata: { secret: 3 } });
    const events = await settle();
    for (const e of events) {
      expect(e.data).toBeNull();
      expect(e.metadata).toBeNull();
      expect(e.category_profile).toBeNull();
    }
    expect(labels(events)).toEqual(["start:function:s", "mark:m", "end:function:s"]); // shells still delivered
    expect(later).toEqual([]);
    const codes = rt.diagnostics().map((d) => d.code);
    expect(codes).toContain("event_sanitizer_failed");
    expect(rt.getLastCallbackError()?.registry).toBe("event_sanitizer");
  });

  it("a scope-local sanitizer removed after emission still applies to the queued event", async () => {
    const { rt, settle } = capturingRuntime();
    const h = rt.pushScope("s");
    rt.registerMarkSanitizer("local", 0, () => ({ data: "clean" }), { scope: h });
    rt.mark("queued", { data: "dirty" });
    rt.popScope(h); // removes the local sanitizer before delivery
    rt.mark("later", { data: "dirty" });
    const events = await settle();
    expect(events.find((e) => e.name === "queued")!.data).toBe("clean");
    expect(events.find((e) => e.name === "later")!.data).toBe("dirty");
  });
});

describe("metadata injectors", () => {
  it("insert only, validate values, and fail open", async () => {
    const { rt, settle } = capturingRuntime();
    rt.registerMetadataInjector("a", 0, () => ({ "deploy.env": "prod", existing: "overwritten?", tags: ["x", "y"] }));
    rt.registerMetadataInjector("bad-values", 1, () => ({ nested: { no: 1 } as never, mixed: [1, "a"] as never }));
    rt.registerMetadataInjector("throws", 2, () => {
      throw new Error("injector bug");
    });
    rt.mark("m", { metadata: { existing: "kept" } });
    rt.mark("text-metadata", { metadata: "not an object" });
    const [m, t] = await settle();
    expect(m!.metadata).toEqual({ existing: "kept", "deploy.env": "prod", tags: ["x", "y"] });
    expect(t!.metadata).toBe("not an object");
    expect(rt.diagnostics().map((d) => d.code)).toEqual(
      expect.arrayContaining(["metadata_injector_failed", "metadata_injector_value_rejected"]),
    );
  });
});

describe("subscribers and delivery", () => {
  it("isolates a throwing or rejecting subscriber and counts it", async () => {
    const rt = createRuntime();
    const seen: string[] = [];
    rt.subscribe("throws", () => {
      throw new Error("sync failure");
    });
    rt.subscribe("rejects", () => Promise.reject(new Error("async failure")));
    rt.subscribe("good", (e) => {
      seen.push(e.name);
    });
    rt.mark("a");
    rt.mark("b");
    await rt.flush();
    expect(seen).toEqual(["a", "b"]);
    const failed = rt.diagnostics().find((d) => d.code === "subscriber_failed");
    expect(failed?.count).toBe(4);
  });

  it("delivers deep-frozen events; mutating the app's payload after emit changes nothing", async () => {
    const { rt, settle } = capturingRuntime();
    const payload = { list: [1, 2], nested: { a: 1 } };
    rt.mark("m", { data: payload });
    payload.list.push(3);
    payload.nested.a = 99;
    const [m] = await settle();
    expect(m!.data).toEqual({ list: [1, 2], nested: { a: 1 } });
    expect(Object.isFrozen((m!.data as { nested: object }).nested)).toBe(true);
    expect(Object.isFrozen(payload)).toBe(false);
  });

  it("queues events emitted inside a callback behind the current one (no re-entrant delivery)", async () => {
    const rt = createRuntime();
    const order: string[] = [];
    rt.subscribe("first", (e) => {
      order.push(`first:${e.name}`);
      if (e.name === "a") rt.mark("from-callback");
    });
    rt.subscribe("second", (e) => {
      order.push(`second:${e.name}`);
    });
    rt.mark("a");
    rt.mark("b");
    await rt.flush();
    await rt.flush();
    expect(order).toEqual(["first:a", "second:a", "first:b", "second:b", "first:from-callback", "second:from-callback"]);
  });

  it("refuses a barrier called from a runtime callback", async () => {
    const rt = createRuntime();
    let refused: unknown;
    rt.subscribe("s", () => {
      rt.flush().catch((e: unknown) => {
        refused = e;
      });
    });
    rt.mark("m");
    await rt.flush();
    expect((refused as RelaytraceError).message).toBe("barrier called from a runtime callback");
  });

  it("bounds the queue: past maxQueueSize events are dropped and counted, never blocking", async () => {
    const heard: { code: string; count: number }[] = [];
    const rt = createRuntime({ maxQueueSize: 100, onDiagnostic: (d) => heard.push({ code: d.code, count: d.count }) });
    let delivered = 0;
    rt.subscribe("count", () => {
      delivered++;
    });
    for (let i = 0; i < 250; i++) rt.mark(`m${i}`);
    await rt.flush();
    expect(delivered).toBe(100);
    expect(rt.diagnostics().find((d) => d.code === "queue_overflow")?.count).toBe(150);
    expect(heard.length).toBe(150);
    expect(heard.at(-1)).toEqual({ code: "queue_overflow", count: 150 });
  });

  it("flush waits for delivery and for subscriber promises of earlier events", async () => {
    const rt = createRuntime();
    const done: string[] = [];
    rt.subscribe("slow", async (e) => {
      await new Promise((r) => setTimeout(r, 20));
      done.push(e.name);
    });
    rt.mark("a");
    rt.mark("b");
    await rt.flush();
    expect(done).toEqual(["a", "b"]);
  });

  it("builds nothing and runs no sanitizer when no subscriber is visible", async () => {
    const rt = createRuntime();
    let ran = 0;
    rt.registerMarkSanitizer("count", 0, (_e, f) => {
      ran++;
      return f;
    });
    rt.mark("nobody-listens");
    await rt.flush();
    expect(ran).toBe(0);
  });

  it("shutdown flushes and shuts attached exporters down once, even when called twice", async () => {
    const rt = createRuntime();
    const calls: string[] = [];
    rt.subscribe("exp", () => undefined, {
      exporter: {
        forceFlush: async () => {
          calls.push("flush");
        },
        shutdown: async () => {
          calls.push("shutdown");
        },
      },
    });
    rt.mark("m");
    await Promise.all([rt.shutdown(), rt.shutdown()]);
    expect(calls).toEqual(["flush", "shutdown"]);
  });
});
