import { afterEach, describe, expect, it } from "vitest";
import { SpanStatusCode } from "@opentelemetry/api";
import { createRuntime, type Runtime } from "../../src/runtime/runtime.js";
import { atofToAtif } from "../../exporters/atif/index.js";
import type { ScopeEvent } from "../../src/events/types.js";
import { createClient, createToolkit, defineTool } from "../../src/agent/index.js";
import { reply, startProvider } from "../support/agent-provider-server.js";
import { captureFull } from "../support/full-capture.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

const boom = defineTool({
  name: "boom",
  description: "",
  execute: () => {
    throw new RangeError("disk on fire");
  },
});
const declines = defineTool({ name: "declines", description: "", execute: () => ({ output: "no such city", isError: true }) });
const slow = defineTool({
  name: "slow",
  description: "",
  timeoutMs: 20,
  execute: () => new Promise<string>((r) => setTimeout(() => r("late"), 2_000).unref()),
});

async function runWith(calls: { id: string; name: string }[], setup: (runtime: Runtime) => void = () => {}) {
  const srv = await startProvider([
    reply(
      "openai",
      "",
      calls.map((c) => ({ ...c, arguments: "{}" })),
    ),
    reply("openai", "done anyway"),
  ]);
  closers.push(srv.close);
  const runtime = createRuntime();
  setup(runtime);
  const finish = captureFull(runtime);
  const client = createClient({ baseUrl: srv.url, style: "openai", model: "stub", runtime, retryBaseMs: 1 });
  const toolkit = await createToolkit({ tools: [boom, declines, slow] });
  let runError: unknown;
  const res = (await client.run("go", { toolkit }).catch((error: unknown) => {
    runError = error;
    return undefined;
  }))!;
  const { events, spans } = await finish();
  const toolEnds = new Map(
    events
      .filter((e): e is ScopeEvent => e.kind === "scope" && e.category === "tool" && e.scope_category === "end")
      .map((e) => [e.name, e]),
  );
  const sent = ((srv.requests[1]?.body.messages ?? []) as { role: string; tool_call_id?: string; content: string }[]).filter(
    (m) => m.role === "tool",
  );
  return { res, runError, events, toolEnds, spans, sent };
}

describe("agent loop tool failures", () => {
  it("a tool whose execute throws ends ERROR with the error's message and type; the model reads the error and the run goes on", async () => {
    const { res, toolEnds, spans, sent } = await runWith([{ id: "c1", name: "boom" }]);
    expect(res.status).toBe("done");
    expect(res.toolCalls[0]).toMatchObject({ output: "disk on fire", isError: true });
    expect(sent).toEqual([{ role: "tool", tool_call_id: "c1", content: "disk on fire" }]);
    expect(toolEnds.get("boom")!.metadata).toMatchObject({
      "otel.status_code": "ERROR",
      "otel.status_description": "disk on fire",
      "exception.type": "RangeError",
    });
    const toolSpan = spans.find((s) => s.name === "boom")!;
    expect(toolSpan.status).toEqual({ code: SpanStatusCode.ERROR, message: "disk on fire" });
    // the run itself succeeded
    expect(spans.find((s) => s.name === "agent")!.status.code).toBe(SpanStatusCode.OK);
  });

  it("a tool that times out ends ERROR; one that returns an error result is a successful call (status OK)", async () => {
    const { res, toolEnds, spans } = await runWith([
      { id: "c1", name: "slow" },
      { id: "c2", name: "declines" },
    ]);
    expect(res.toolCalls.map((c) => [c.output, c.isError])).toEqual([
      ["tool slow timed out after 20 ms", true],
      ["no such city", true],
    ]);
    expect(toolEnds.get("slow")!.metadata).toMatchObject({
      "otel.status_code": "ERROR",
      "otel.status_description": "tool slow timed out after 20 ms",
      "exception.type": "TimeoutError",
    });
    expect(toolEnds.get("declines")!.metadata).toMatchObject({ "otel.status_code": "OK" });
    expect(toolEnds.get("declines")!.data).toEqual({ output: "no such city", isError: true });
    expect(spans.find((s) => s.name === "slow")!.status.code).toBe(SpanStatusCode.ERROR);
    expect(spans.find((s) => s.name === "declines")!.status.code).toBe(SpanStatusCode.OK);
  });

  it("a tool that threw keeps the error result the model read as its end's data, through the response sanitizers, so the ATIF observation has it", async () => {
    const { events, toolEnds } = await runWith([{ id: "c1", name: "boom" }], (runtime) => {
      runtime.registerToolSanitizeResponse("mask-fire", 10, (_tool, result) =>
        JSON.parse(JSON.stringify(result).replaceAll("fire", "[masked]")),
      );
    });
    expect(toolEnds.get("boom")!.data).toEqual({ output: "disk on [masked]", isError: true });
    const [doc] = atofToAtif(events);
    const results = doc!.steps.flatMap((s) => s.observation?.results ?? []);
    expect(results).toContainEqual(expect.objectContaining({ source_call_id: "c1", content: "disk on [masked]" }));
  });

  it("an execution intercept around a tool that threw sees the tool's own error, and the end still records the error result", async () => {
    const seen: unknown[] = [];
    const { res, toolEnds } = await runWith([{ id: "c1", name: "boom" }], (runtime) => {
      runtime.registerToolExecutionIntercept("watch", 10, async (args, next) => {
        try {
          return await next(args);
        } catch (error) {
          seen.push(error);
          throw error;
        }
      });
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBeInstanceOf(RangeError);
    expect((seen[0] as Error).message).toBe("disk on fire");
    expect(res.toolCalls[0]).toMatchObject({ output: "disk on fire", isError: true });
    expect(toolEnds.get("boom")!.data).toEqual({ output: "disk on fire", isError: true });
    expect(toolEnds.get("boom")!.metadata).toMatchObject({ "exception.type": "RangeError" });
  });

  it("an intercept that fails the call with an error of its own ends it with that error, not the tool's error result", async () => {
    const { res, runError, toolEnds } = await runWith([{ id: "c1", name: "boom" }], (runtime) => {
      runtime.registerToolExecutionIntercept("replace", 10, async (args, next) => {
        try {
          return await next(args);
        } catch {
          throw new TypeError("policy refused the tool");
        }
      });
    });
    expect(toolEnds.get("boom")!.metadata).toMatchObject({
      "exception.type": "TypeError",
      "otel.status_description": "policy refused the tool",
    });
    expect(toolEnds.get("boom")!.data).toBeNull();
    // The loop does not swallow an error that is not the tool's: the run fails with it.
    expect(res).toBeUndefined();
    expect(runError).toBeInstanceOf(TypeError);
  });
});
