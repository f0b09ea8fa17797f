import { describe, expect, it } from "vitest";
import type { Json } from "../../src/events/json.js";
import { parseTimestamp } from "../../src/events/timestamp.js";
import { GuardrailRejectedError, RelaytraceError } from "../../src/runtime/errors.js";
import type { ToolExecutionInterceptOutcome, ToolExecutionResult } from "../../src/runtime/types.js";
import { capturingRuntime, labels, marks, scopes } from "../support/capture.js";

const ok = (result: Json, annotation?: Json): ToolExecutionResult => (annotation === undefined ? { result } : { result, annotation });

describe("canonical tool execution results and intercept outcomes (the documented examples)", () => {
  it("example 1: a callback's {result, annotation} — the annotation rides the end event's profile, status OK", async () => {
    const { rt, settle } = capturingRuntime();
    const got = await rt.executeTool("get_weather", { city: "Oslo" }, () => ok({ temp_c: 4 }, { cache: "hit", rank: 1 }), {
      toolCallId: "call_9f2",
    });
    expect(got).toEqual({ result: { temp_c: 4 }, annotation: { cache: "hit", rank: 1 } });
    const [start, end] = scopes(await settle());
    expect(start).toMatchObject({
      category: "tool",
      category_profile: { tool_call_id: "call_9f2" },
      data: { city: "Oslo" },
      metadata: null,
    });
    expect(end).toMatchObject({
      category_profile: { tool_call_id: "call_9f2", tool_result_annotation: { cache: "hit", rank: 1 } },
      data: { temp_c: 4 },
      metadata: { "otel.status_code": "OK" },
    });
  });

  it("example 1b: a null annotation is the same as none", async () => {
    const { rt, settle } = capturingRuntime();
    const got = await rt.executeTool("t", {}, () => ({ result: 1, annotation: null }));
    expect(got).toEqual({ result: 1 });
    expect("annotation" in got).toBe(false);
    const end = (await settle())[1]!;
    expect(end.category_profile).toEqual({});
  });

  it("example 2: an intercept's pendingMarks are emitted after the end, parented to the tool, +1 µs each", async () => {
    const { rt, settle } = capturingRuntime();
    rt.registerToolExecutionIntercept("cache", 10, async (args, next): Promise<ToolExecutionInterceptOutcome> => {
      const r = await next(args);
      return {
        ...r,
        pendingMarks: [
          {
            name: "cache.lookup",
            category: "custom",
            categoryProfile: { subtype: "acme.cache" },
            data: { hit: true },
            dataSchema: { name: "acme.cache_lookup", version: "1" },
            severity: "info",
          },
          { name: "audit.recorded", data: { policy: "p1" }, severity: "warning" },
        ],
      };
    });
    const got = await rt.executeTool("get_weather", { city: "Oslo" }, () => ok({ temp_c: 4 }, { cache: "hit" }));
    expect(got).toEqual({ result: { temp_c: 4 }, annotation: { cache: "hit" } }); // marks never in the app result
    const events = await settle();
    expect(labels(events)).toEqual(["start:tool:get_weather", "end:tool:get_weather", "mark:cache.lookup", "mark:audit.recorded"]);
    const [, end, m1, m2] = events;
    const endUs = parseTimestamp(end!.timestamp);
    expect(parseTimestamp(m1!.timestamp)).toBe(endUs + 1);
    expect(parseTimestamp(m2!.timestamp)).toBe(endUs + 2);
    expect(m1).toMatchObject({
      parent_uuid: end!.uuid,
      category: "custom",
      category_profile: { subtype: "acme.cache" },
      data: { hit: true },
      data_schema: { name: "acme.cache_lookup", version: "1" },
      metadata: { "nemo_relay.log.severity": "info" },
    });
    expect(m2!.metadata).toEqual({ "nemo_relay.log.severity": "warn" });
    expect(m1!.uuid).not.toBe(m2!.uuid);
  });

  it("example 3: next() exposes the downstream result and annotation but never downstream marks; a failure discards them all", async () => {
    const { rt, settle } = capturingRuntime();
    const seenByOuter: unknown[] = [];
    rt.registerToolExecutionIntercept("outer", 1, async (args, next) => {
      const r = await next(args);
      seenByOuter.push(r);
      if ((args as { fail?: boolean }).fail) throw new Error("outer failed after next");
      return { result: r.result }; // deliberately drops the annotation
    });
    rt.registerToolExecutionIntercept("inner", 2, async (args, next) => ({
      ...(await next(args)),
      pendingMarks: [{ name: "inner.mark" }],
    }));
    const got = await rt.executeTool("t", {}, () => ok("value", { a: 1 }));
    expect(got).toEqual({ result: "value" });
    expect(seenByOuter[0]).toEqual({ result: "value", annotation: { a: 1 } });
    await expect(rt.executeTool("t", { fail: true }, () => ok("value", { a: 1 }))).rejects.toThrow("outer failed after next");
    const events = await settle();
    expect(labels(events)).toEqual(["start:tool:t", "end:tool:t", "mark:inner.mark", "start:tool:t", "end:tool:t"]);
    expect(events[1]!.category_profile).toEqual({}); // annotation removed by the intercept
    expect(events[4]).toMatchObject({
      data: null,
      category_profile: {},
      metadata: {
        "otel.status_code": "ERROR",
        "otel.status_description": "outer failed after next",
        "error.type": "internal_error",
        "exception.type": "Error",
      },
    });
  });
});

describe("execution-intercept chain", () => {
  it("orders by priority then name, lowest outermost", async () => {
    const { rt } = capturingRuntime();
    const trace: string[] = [];
    for (const [name, priority] of [
      ["b", 5],
      ["a", 5],
      ["z", 1],
    ] as const) {
      rt.registerToolExecutionIntercept(name, priority, async (args, next) => {
        trace.push(`${name}>`);
        const r = await next(args);
        trace.push(`<${name}`);
        return r;
      });
    }
    await rt.executeTool("t", {}, () => {
      trace.push("tool");
      return ok(1);
    });
    expect(trace).toEqual(["z>", "a>", "b>", "tool", "<b", "<a", "<z"]);
  });

  it("next called twice runs the tool twice; zero times short-circuits it", async () => {
    const { rt } = capturingRuntime();
    let runs = 0;
    const remove = rt.registerToolExecutionIntercept("twice", 1, async (args, next) => {
      const [a, b] = await Promise.all([next(args), next(args)]);
      return { result: [a.result, b.result] };
    });
    const got = await rt.executeTool("t", {}, () => ok(++runs));
    expect(got.result).toEqual([1, 2]);
    remove();
    rt.registerToolExecutionIntercept("cache", 1, () => ({ result: "cached", annotation: { source: "cache" } }));
    expect(await rt.executeTool("t", {}, () => ok(++runs))).toEqual({ result: "cached", annotation: { source: "cache" } });
    expect(runs).toBe(2);
  });

  it("combines marks across three nested intercepts: innermost first, repeated next calls in call order", async () => {
    const { rt, settle } = capturingRuntime();
    rt.registerToolExecutionIntercept("A", 1, async (args, next) => ({ ...(await next(args)), pendingMarks: [{ name: "a" }] }));
    rt.registerToolExecutionIntercept("B", 2, async (args, next) => {
      const first = next(args);
      const second = next(args);
      await Promise.all([second, first]);
      return { result: "b", pendingMarks: [{ name: "b" }] };
    });
    let call = 0;
    rt.registerToolExecutionIntercept("C", 3, async (args, next) => {
      const n = ++call;
      const r = await next(args);
      return { ...r, pendingMarks: [{ name: `c${n}` }] };
    });
    await rt.executeTool("t", {}, () => ok(null));
    expect(marks(await settle()).map((m) => m.name)).toEqual(["c1", "c2", "b", "a"]);
  });

  it("a failed next call contributes no marks even when the intercept catches it", async () => {
    const { rt, settle } = capturingRuntime();
    rt.registerToolExecutionIntercept("retry", 1, async (args, next) => {
      try {
        return await next({ attempt: 1 });
      } catch {
        return next({ attempt: 2 });
      }
    });
    rt.registerToolExecutionIntercept("marker", 2, async (args, next) => ({
      ...(await next(args)),
      pendingMarks: [{ name: `m${(args as { attempt: number }).attempt}` }],
    }));
    await rt.executeTool("t", {}, (args) => {
      if ((args as { attempt: number }).attempt === 1) throw new Error("first attempt fails");
      return ok("done");
    });
    expect(marks(await settle()).map((m) => m.name)).toEqual(["m2"]);
  });

  it("rejects a continuation used after the intercept settled", async () => {
    const { rt } = capturingRuntime();
    let saved: ((a: Json) => Promise<ToolExecutionResult>) | undefined;
    rt.registerToolExecutionIntercept("leaky", 1, (_args, next) => {
      saved = next;
      return { result: "early" };
    });
    await rt.executeTool("t", {}, () => ok(1));
    await expect(saved!({})).rejects.toThrow(/continuation used after intercept settled/);
  });

  it("validates outcomes: raw values, missing result, snake_case mark keys", async () => {
    const { rt, settle } = capturingRuntime();
    await expect(rt.executeTool("raw", {}, () => "just a string" as never)).rejects.toThrow(/invalid tool execution result.*raw string/);
    await expect(rt.executeTool("noresult", {}, () => ({ value: 1 }) as never)).rejects.toThrow(/without a result key/);
    const remove = rt.registerToolExecutionIntercept("snake", 1, async (args, next) => ({
      ...(await next(args)),
      pendingMarks: [{ name: "m", category_profile: { subtype: "x" } } as never],
    }));
    await expect(rt.executeTool("t", {}, () => ok(1))).rejects.toThrow("unknown field category_profile (use categoryProfile)");
    remove();
    rt.registerToolExecutionIntercept("noname", 1, async (args, next) => ({ ...(await next(args)), pendingMarks: [{ data: 1 } as never] }));
    await expect(rt.executeTool("t", {}, () => ok(1))).rejects.toThrow(/name must be a non-empty string/);
    rt.registerToolExecutionIntercept("extra", 0, async (args, next) => ({ ...(await next(args)), somethingElse: true }) as never);
    const events = await settle();
    expect(
      scopes(events)
        .filter((e) => e.scope_category === "end")
        .every((e) => (e.metadata as Record<string, string>)["otel.status_code"] === "ERROR"),
    ).toBe(true);
    expect(marks(events)).toEqual([]);
  });
});

describe("sanitizers and annotations", () => {
  it("the app gets unsanitized args and result; events carry the sanitized ones; the response chain never sees the annotation", async () => {
    const { rt, settle } = capturingRuntime();
    const responseSaw: Json[] = [];
    rt.registerToolSanitizeRequest("mask-args", 0, (_tool, args) => ({ ...(args as object), password: "***" }));
    rt.registerToolSanitizeResponse("mask-result", 0, (_tool, result) => {
      responseSaw.push(result);
      return { ...(result as object), token: "***" };
    });
    let toolGot: Json = null;
    const got = await rt.executeTool("login", { user: "u", password: "hunter2" }, (args) => {
      toolGot = args;
      return ok({ token: "abc" }, { session: "s1" });
    });
    expect(toolGot).toEqual({ user: "u", password: "hunter2" });
    expect(got).toEqual({ result: { token: "abc" }, annotation: { session: "s1" } });
    const [start, end] = await settle();
    expect(start!.data).toEqual({ user: "u", password: "***" });
    expect(end!.data).toEqual({ token: "***" });
    expect(end!.category_profile).toEqual({ tool_result_annotation: { session: "s1" } });
    expect(responseSaw).toEqual([{ token: "abc" }]);
    expect(JSON.stringify(await settle())).not.toContain("hunter2");
  });

  it("a failing payload sanitizer omits the payload (fail closed) and leaves execution alone", async () => {
    const { rt, settle } = capturingRuntime();
    rt.registerToolSanitizeResponse("broken", 0, () => {
      throw new Error("sanitizer bug");
    });
    const got = await rt.executeTool("t", {}, () => ok({ secret: "s" }));
    expect(got.result).toEqual({ secret: "s" });
    const end = (await settle())[1]!;
    expect(end.data).toBeNull();
    expect(JSON.stringify(end)).not.toContain('"s"');
  });

  it("only the scope-end sanitizer can replace or remove the annotation", async () => {
    const { rt, settle } = capturingRuntime();
    rt.registerScopeEndSanitizer("strip-annotation", 0, (_e, fields) => {
      const { tool_result_annotation: _dropped, ...rest } = fields.categoryProfile ?? {};
      return { ...fields, categoryProfile: rest };
    });
    const got = await rt.executeTool("t", {}, () => ok(1, { internal: "x" }), { toolCallId: "c1" });
    expect(got.annotation).toEqual({ internal: "x" });
    expect((await settle())[1]!.category_profile).toEqual({ tool_call_id: "c1" });
  });
});

describe("guardrails and request intercepts", () => {
  it("a rejecting guardrail emits a guardrail pair and a rejection mark, no tool events, and rejects", async () => {
    const { rt, settle } = capturingRuntime();
    rt.registerToolConditionalGuardrail("allow-all", 0, () => null);
    rt.registerToolConditionalGuardrail("no-rm", 1, (tool, args) =>
      (args as { cmd: string }).cmd.includes("rm") ? "destructive command" : null,
    );
    rt.registerToolConditionalGuardrail("never-reached", 2, () => "unreachable");
    let ran = false;
    const error = await rt
      .executeTool("bash", { cmd: "rm -rf /" }, () => {
        ran = true;
        return ok(1);
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GuardrailRejectedError);
    expect((error as GuardrailRejectedError).reason).toBe("destructive command");
    expect((error as RelaytraceError).code).toBe("guardrail_rejected");
    expect(ran).toBe(false);
    const events = await settle();
    expect(labels(events)).toEqual([
      "start:guardrail:allow-all",
      "end:guardrail:allow-all",
      "start:guardrail:no-rm",
      "end:guardrail:no-rm",
      "mark:bash",
    ]);
    expect(events[0]!.data).toEqual({ kind: "tool_conditional_execution", target_name: "bash" });
    expect(events[1]!.data).toEqual({ allowed: true, rejected: false });
    expect(events[3]!.data).toEqual({ allowed: false, rejected: true, rejection_reason: "destructive command" });
    expect(events[4]!.data).toEqual({ rejected: true, rejection_reason: "destructive command" });
    expect(JSON.stringify(events)).not.toContain("rm -rf");
  });

  it("request intercepts rewrite the real args in order; breakChain stops the later ones", async () => {
    const { rt, settle } = capturingRuntime();
    rt.registerToolRequestIntercept("add-a", 0, (_t, args) => ({ ...(args as object), a: 1 }));
    rt.registerToolRequestIntercept("add-b", 1, (_t, args) => ({ ...(args as object), b: 2 }), { breakChain: true });
    rt.registerToolRequestIntercept("add-c", 2, (_t, args) => ({ ...(args as object), c: 3 }));
    let got: Json = null;
    await rt.executeTool("t", {}, (args) => {
      got = args;
      return ok(null);
    });
    expect(got).toEqual({ a: 1, b: 2 });
    expect((await settle())[0]!.data).toEqual({ a: 1, b: 2 });
  });
});

describe("cancellation and manual lifecycle", () => {
  it("an abort ends the tool once with ERROR 'tool execution cancelled' and rejects with the reason", async () => {
    const { rt, settle } = capturingRuntime();
    const controller = new AbortController();
    rt.registerToolExecutionIntercept("marks", 1, async (args, next) => ({ ...(await next(args)), pendingMarks: [{ name: "never" }] }));
    // The tool is running when the abort comes, and settles only after it (late), whatever the machine's speed.
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    let settledLate!: () => void;
    const late = new Promise<void>((r) => (settledLate = r));
    const pending = rt.executeTool(
      "slow",
      {},
      (_args, ctx) =>
        new Promise<ToolExecutionResult>((resolve) => {
          ctx.signal.addEventListener("abort", () => setImmediate(() => (resolve(ok(1)), settledLate())));
          started();
        }),
      { signal: controller.signal },
    );
    await running;
    controller.abort(new Error("user cancelled"));
    await expect(pending).rejects.toThrow("user cancelled");
    await late; // the late settlement is ignored
    const events = await settle();
    expect(labels(events)).toEqual(["start:tool:slow", "end:tool:slow"]);
    expect(events[1]!.metadata).toEqual({ "otel.status_code": "ERROR", "otel.status_description": "tool execution cancelled" });
  });

  it("startTool/endTool follow the same event rules without status keys on success", async () => {
    const { rt, settle } = capturingRuntime();
    const h = rt.startTool("manual", { q: 1 }, { toolCallId: "c9", metadata: { a: 1 } });
    rt.endTool(h, { result: { r: 2 }, annotation: { n: 1 } });
    rt.endTool(h, { result: "again" });
    const h2 = rt.startTool("manual-fail", {});
    rt.endTool(h2, { error: new TypeError("bad") });
    const events = await settle();
    expect(labels(events)).toEqual(["start:tool:manual", "end:tool:manual", "start:tool:manual-fail", "end:tool:manual-fail"]);
    expect(events[1]).toMatchObject({
      data: { r: 2 },
      metadata: { a: 1 },
      category_profile: { tool_call_id: "c9", tool_result_annotation: { n: 1 } },
    });
    expect(events[3]!.metadata).toMatchObject({ "otel.status_code": "ERROR", "exception.type": "TypeError" });
    expect(rt.diagnostics().find((d) => d.code === "tool.already_ended")?.count).toBe(1);
  });

  it("records hostile results safely: cycles, BigInt and functions become markers with a diagnostic", async () => {
    const { rt, settle } = capturingRuntime();
    const cyclic: Record<string, unknown> = { n: 1n, f: () => 1 };
    cyclic.self = cyclic;
    const got = await rt.executeTool("t", {}, () => ({ result: cyclic as never, annotation: { big: 2n } as never }));
    expect(got.result).toBe(cyclic); // the app gets its own object back
    const end = (await settle())[1]!;
    expect(end.data).toEqual({ n: "1", self: "[Circular]" });
    expect(end.category_profile).toEqual({ tool_result_annotation: { big: "2" } });
    expect(rt.diagnostics().find((d) => d.code === "payload_not_json")).toBeDefined();
  });
});
