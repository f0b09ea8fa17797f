import { describe, expect, it } from "vitest";
import { serializeEvent } from "../../src/events/atof-serialize.js";
import { RelaytraceError } from "../../src/runtime/errors.js";
import { capturingRuntime, labels, marks, scopes } from "../support/capture.js";

const SCOPE_KEYS = [
  "kind",
  "scope_category",
  "atof_version",
  "uuid",
  "parent_uuid",
  "timestamp",
  "name",
  "attributes",
  "category",
  "category_profile",
  "data",
  "data_schema",
  "metadata",
];
const MARK_KEYS = [
  "kind",
  "atof_version",
  "uuid",
  "parent_uuid",
  "timestamp",
  "name",
  "category",
  "category_profile",
  "data",
  "data_schema",
  "metadata",
];

describe("event shapes (ATOF 0.1)", () => {
  it("writes every envelope key, explicit nulls, canonical flags and the six-digit timestamp", async () => {
    const { rt, settle } = capturingRuntime();
    await rt.withScope(
      "step",
      () => {
        rt.mark("checkpoint");
      },
      { attributes: ["streaming", "parallel", "streaming"] },
    );
    const [start, mark, end] = await settle();
    expect(Object.keys(start!)).toEqual(SCOPE_KEYS);
    expect(Object.keys(end!)).toEqual(SCOPE_KEYS);
    expect(Object.keys(mark!)).toEqual(MARK_KEYS);
    expect(start).toMatchObject({
      kind: "scope",
      scope_category: "start",
      atof_version: "0.1",
      name: "step",
      category: "function",
      attributes: ["parallel", "streaming"],
      category_profile: null,
      data: null,
      data_schema: null,
      metadata: null,
    });
    expect(start!.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(mark).toMatchObject({ kind: "mark", category: null, category_profile: null, parent_uuid: start!.uuid });
    expect(mark).not.toHaveProperty("scope_category");
    expect(mark).not.toHaveProperty("attributes");
    expect(end!.uuid).toBe(start!.uuid);
    expect(end!.parent_uuid).toBe(start!.parent_uuid);
  });

  it("serializes runtime events (fast path) exactly as any other event with the same fields", async () => {
    const { rt, settle } = capturingRuntime();
    await rt.withScope(
      "s",
      async () => {
        rt.mark("m", { data: { x: [1, "two"] }, severity: "info", category: "custom", categoryProfile: { subtype: "acme.x" } });
        await rt.executeTool("t", { q: "é\u2028" }, () => ({ result: { ok: true }, annotation: { a: 1 } }), { toolCallId: "c1" });
      },
      { attributes: ["parallel"], metadata: { session_id: "s1" } },
    );
    const events = await settle();
    expect(events).toHaveLength(5);
    for (const event of events) {
      const plain = JSON.parse(JSON.stringify(event)) as typeof event; // same fields, no fast-path marker
      expect(serializeEvent(event)).toBe(serializeEvent(plain));
      expect(Object.keys(JSON.parse(serializeEvent(event)) as object)).toEqual(event.kind === "mark" ? MARK_KEYS : SCOPE_KEYS);
    }
  });

  it("gives a top-level scope the hidden root as parent, which never emits", async () => {
    const { rt, settle } = capturingRuntime();
    await rt.withScope("top", () => undefined);
    const events = await settle();
    expect(events[0]!.parent_uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(events.some((e) => e.uuid === events[0]!.parent_uuid)).toBe(false);
  });

  it("rejects bad flags and a custom category without subtype", async () => {
    const { rt } = capturingRuntime();
    expect(() => rt.pushScope("x", { attributes: ["Streaming"] })).toThrow(TypeError);
    expect(() => rt.pushScope("x", { category: "custom" })).toThrow(/subtype/);
    const h = rt.pushScope("x", { category: "custom", categoryProfile: { subtype: "acme.compaction" } });
    rt.popScope(h);
  });

  it("puts input in the start data and output in the end data", async () => {
    const { rt, settle } = capturingRuntime();
    const h = rt.pushScope("manual", { input: { q: 1 }, metadata: { a: 1 } });
    rt.popScope(h, { output: { r: 2 }, metadata: { b: 2 } });
    const [start, end] = scopes(await settle());
    expect(start!.data).toEqual({ q: 1 });
    expect(end!.data).toEqual({ r: 2 });
    expect(end!.metadata).toEqual({ a: 1, b: 2 }); // manual pop adds no status keys
  });
});

describe("withScope", () => {
  it("ends OK on return and with the error keys on throw, rethrowing the original error", async () => {
    const { rt, settle } = capturingRuntime();
    await rt.withScope("ok", () => 1);
    const boom = new RangeError("out of range");
    await expect(rt.withScope("bad", () => Promise.reject(boom))).rejects.toBe(boom);
    const ends = scopes(await settle()).filter((e) => e.scope_category === "end");
    expect(ends[0]!.metadata).toEqual({ "otel.status_code": "OK" });
    expect(ends[1]!.metadata).toEqual({
      "otel.status_code": "ERROR",
      "otel.status_description": "out of range",
      "error.type": "internal_error",
      "exception.type": "RangeError",
    });
  });

  it("lets the body set the end output and metadata", async () => {
    const { rt, settle } = capturingRuntime();
    await rt.withScope(
      "run",
      (scope) => {
        scope.setOutput({ status: "done" });
        scope.addMetadata({ turns: 2 });
      },
      { category: "agent", metadata: { session_id: "s1" } },
    );
    const end = (await settle())[1]!;
    expect(end.data).toEqual({ status: "done" });
    expect(end.metadata).toEqual({ session_id: "s1", turns: 2, "otel.status_code": "OK" });
  });

  it("keeps concurrent chains apart: no scope sees a sibling's scope as parent", async () => {
    const { rt, settle } = capturingRuntime();
    const tick = () => new Promise((r) => setTimeout(r, 1));
    await rt.withScope("root", () =>
      Promise.all(
        ["a", "b", "c"].map((name) =>
          rt.withScope(name, async () => {
            await tick();
            await rt.withScope(`${name}.child`, async () => {
              await tick();
              rt.mark(`${name}.mark`);
              await rt.executeTool(`${name}.tool`, {}, async () => {
                await tick();
                return { result: null };
              });
            });
          }),
        ),
      ),
    );
    const events = await settle();
    const byName = new Map(scopes(events).map((e) => [e.name, e]));
    for (const name of ["a", "b", "c"]) {
      expect(byName.get(name)!.parent_uuid).toBe(byName.get("root")!.uuid);
      expect(byName.get(`${name}.child`)!.parent_uuid).toBe(byName.get(name)!.uuid);
      expect(byName.get(`${name}.tool`)!.parent_uuid).toBe(byName.get(`${name}.child`)!.uuid);
      expect(marks(events).find((m) => m.name === `${name}.mark`)!.parent_uuid).toBe(byName.get(`${name}.child`)!.uuid);
    }
  });

  it("never pushes for tools and marks: work inside a tool is parented to the enclosing scope", async () => {
    const { rt, settle } = capturingRuntime();
    await rt.withScope("agent", () =>
      rt.executeTool("outer", {}, async () => {
        rt.mark("inside");
        await rt.executeTool("inner", {}, () => ({ result: 1 }));
        return { result: 2 };
      }),
    );
    const events = await settle();
    const agent = events[0]!;
    const inner = scopes(events).find((e) => e.name === "inner")!;
    expect(inner.parent_uuid).toBe(agent.uuid);
    expect(marks(events)[0]!.parent_uuid).toBe(agent.uuid);
  });
});

describe("pushScope / popScope", () => {
  it("refuses to pop a scope that is not on top, naming both", () => {
    const { rt } = capturingRuntime();
    const a = rt.pushScope("alpha");
    const b = rt.pushScope("beta");
    let error: unknown;
    try {
      rt.popScope(a);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RelaytraceError);
    expect((error as RelaytraceError).code).toBe("invalid_argument");
    expect((error as Error).message).toContain("alpha");
    expect((error as Error).message).toContain("beta");
    rt.popScope(b);
    rt.popScope(a);
    expect(() => rt.popScope(a)).toThrow(/not on the current stack/);
  });
});

describe("marks", () => {
  it("writes severity into <ns>.log.severity, with warning written as warn", async () => {
    const { rt, settle } = capturingRuntime();
    rt.mark("a", { severity: "warning", metadata: { k: 1 } });
    rt.mark("b", { severity: "error", data: { x: 1 }, dataSchema: { name: "acme.x", version: "1" } });
    const [a, b] = await settle();
    expect(a!.metadata).toEqual({ k: 1, "nemo_relay.log.severity": "warn" });
    expect(b!.metadata).toEqual({ "nemo_relay.log.severity": "error" });
    expect(b!.data_schema).toEqual({ name: "acme.x", version: "1" });
  });

  it("uses the configured namespace and refuses severity on non-object metadata", async () => {
    const { rt, settle } = capturingRuntime({ namespace: "acme" });
    rt.mark("a", { severity: "info" });
    expect(() => rt.mark("b", { severity: "info", metadata: "text" })).toThrow(/must be a JSON object/);
    expect((await settle())[0]!.metadata).toEqual({ "acme.log.severity": "info" });
    expect(labels(await settle())).toEqual(["mark:a"]);
  });
});
