import { describe, expect, it } from "vitest";
import type { AtofEvent } from "../../src/events/types.js";
import { RelaytraceError } from "../../src/runtime/errors.js";
import { createRuntime } from "../../src/runtime/runtime.js";
import type { ToolNext } from "../../src/runtime/types.js";

function setup() {
  const runtime = createRuntime();
  const events: AtofEvent[] = [];
  runtime.subscribe("capture", (e) => {
    events.push(e);
  });
  const ends = () => events.filter((e) => e.kind === "scope" && e.scope_category === "end");
  return { runtime, events, ends };
}

describe("bad pending-mark specs are rejected with a message that names the problem", () => {
  const cases: [string, unknown, RegExp][] = [
    [
      "snake_case category_profile",
      { name: "m", category_profile: { subtype: "x" } },
      /unknown field category_profile \(use categoryProfile\)/,
    ],
    ["snake_case data_schema", { name: "m", data_schema: { name: "s", version: "1" } }, /unknown field data_schema \(use dataSchema\)/],
    ["missing name", { data: 1 }, /name must be a non-empty string/],
    ["name of the wrong type", { name: 42 }, /name must be a non-empty string/],
    ["category of the wrong type", { name: "m", category: 7 }, /category must be a string or null/],
    ["categoryProfile not an object", { name: "m", categoryProfile: "x" }, /categoryProfile must be an object or null/],
    ["dataSchema without version", { name: "m", dataSchema: { name: "s" } }, /dataSchema must be \{ name: string, version: string \}/],
    ["unknown severity", { name: "m", severity: "loud" }, /severity must be one of/],
    ["a spec that is not an object", "just a string", /must be an object with a name/],
  ];
  for (const [label, spec, message] of cases) {
    it(label, async () => {
      const { runtime, events, ends } = setup();
      const remove = runtime.registerToolExecutionIntercept("marks", 1, async (args, next) => ({
        ...(await next(args)),
        pendingMarks: [spec as never],
      }));
      const run = runtime.executeTool("t", {}, () => ({ result: "ok" }));
      await expect(run).rejects.toThrow(message);
      await expect(run).rejects.toBeInstanceOf(TypeError);
      remove();
      await runtime.flush();
      // the tool still ended exactly once, as an error, and no mark escaped
      expect(ends()).toHaveLength(1);
      expect((ends()[0]!.metadata as Record<string, string>)["otel.status_code"]).toBe("ERROR");
      expect(events.filter((e) => e.kind === "mark")).toHaveLength(0);
    });
  }

  it("pendingMarks that is not an array, and a raw value returned where an outcome is due", async () => {
    const { runtime } = setup();
    const remove = runtime.registerToolExecutionIntercept("bad", 1, () => ({ result: 1, pendingMarks: { name: "x" } }) as never);
    await expect(runtime.executeTool("t", {}, () => ({ result: 1 }))).rejects.toThrow(/pendingMarks must be an array/);
    remove();
    runtime.registerToolExecutionIntercept("raw", 1, () => 42 as never);
    await expect(runtime.executeTool("t", {}, () => ({ result: 1 }))).rejects.toThrow(
      /returned a raw number; expected \{ result, annotation\? \}/,
    );
    await expect(createRuntime().executeTool("t", {}, () => "plain" as never)).rejects.toThrow(/tool callback returned a raw string/);
  });
});

describe("sanitizers returning garbage fail closed", () => {
  const garbage: [string, unknown][] = [
    ["undefined", undefined],
    ["a string", "[redacted]"],
    ["an array", []],
    ["an object with none of the fields", { other: 1 }],
    ["a non-object categoryProfile", { data: 1, categoryProfile: "x" }],
  ];
  for (const [label, value] of garbage) {
    it(`a scope sanitizer returning ${label}: payload dropped, shell delivered, counted`, async () => {
      const { runtime, events } = setup();
      runtime.registerScopeStartSanitizer("junk", 1, () => value as never);
      const out = await runtime.withScope("s", () => "app value", { input: { secret: "hunter2" }, metadata: { secret: "hunter2" } });
      await runtime.flush();
      expect(out).toBe("app value");
      const start = events.find((e) => e.kind === "scope" && e.scope_category === "start")!;
      expect(start).toMatchObject({ name: "s", data: null, metadata: null, category_profile: null });
      expect(JSON.stringify(events.filter((e) => e === start))).not.toContain("hunter2");
      expect(runtime.diagnostics().find((d) => d.code === "event_sanitizer_failed")?.message).toMatch(/junk/);
    });
  }

  it("a throwing mark sanitizer drops the mark payload; a throwing tool response sanitizer drops only the result", async () => {
    const { runtime, events } = setup();
    runtime.registerMarkSanitizer("throws", 1, () => {
      throw new Error("sanitizer bug");
    });
    runtime.registerToolSanitizeResponse("throws", 1, () => {
      throw new Error("sanitizer bug");
    });
    runtime.mark("m", { data: "hunter2" });
    const r = await runtime.executeTool("t", { a: 1 }, () => ({ result: "hunter2", annotation: { ok: 1 } }));
    await runtime.flush();
    expect(r.result).toBe("hunter2");
    expect(JSON.stringify(events)).not.toContain("hunter2");
    const codes = runtime.diagnostics().map((d) => d.code);
    expect(codes).toEqual(expect.arrayContaining(["event_sanitizer_failed", "tool_sanitize_response_failed"]));
    const toolEnd = events.find((e) => e.kind === "scope" && e.scope_category === "end" && e.name === "t")!;
    expect(toolEnd.data).toBeNull();
    expect(toolEnd.category_profile?.tool_result_annotation).toEqual({ ok: 1 });
  });
});

describe("intercepts that call next after settling", () => {
  it("get a RelaytraceError invalid_argument naming the intercept; the tool ended once", async () => {
    const { runtime, ends } = setup();
    let saved: ToolNext | undefined;
    runtime.registerToolExecutionIntercept("late", 1, (args, next) => {
      saved = next;
      return { result: "short-circuit" };
    });
    let executions = 0;
    const r = await runtime.executeTool("t", {}, () => {
      executions++;
      return { result: "real" };
    });
    expect(r).toEqual({ result: "short-circuit" });
    const late = saved!({});
    await expect(late).rejects.toBeInstanceOf(RelaytraceError);
    await expect(late).rejects.toMatchObject({
      code: "invalid_argument",
      message: expect.stringMatching(/continuation used after intercept settled \(late\)/),
    });
    await runtime.flush();
    expect(executions).toBe(0);
    expect(ends()).toHaveLength(1);
  });
});
