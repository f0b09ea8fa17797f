// relaytraceTelemetry with the real `ai` 7 (the npm alias `ai7`): every tool execution is its own
// scope even when the provider repeats a tool call id, and runs the SDK never ends are bounded.
import { isStepCount, generateText, jsonSchema, streamText, tool } from "ai7";
import { createOpenAICompatible } from "openai-compatible7";
import { afterEach, describe, expect, it } from "vitest";
import type { AtofEvent, MarkEvent, Runtime } from "relaytrace";
import { relaytraceTelemetry } from "relaytrace/ai-sdk";
import { startScriptedProvider, type ScriptedProvider } from "relaytrace/testing";
import { ends, integrationRun, starts } from "../support/integration-run.js";

let provider: ScriptedProvider | undefined;
afterEach(async () => {
  await provider?.close();
  provider = undefined;
});

function modelAt(url: string) {
  return createOpenAICompatible({ name: "scripted", baseURL: url, apiKey: "sk-test-key" }).chatModel("gpt-4.1-mini");
}

/** Resolves with the first published event `match` accepts. */
function published(runtime: Runtime, match: (e: AtofEvent) => boolean): Promise<AtofEvent> {
  return new Promise((resolve) => {
    const off = runtime.subscribe(`wait-${Math.random()}`, (e) => {
      if (match(e)) {
        off();
        resolve(e);
      }
    });
  });
}

/** Resolves once `count` events `match` accepts were published. */
function publishedCount(runtime: Runtime, count: number, match: (e: AtofEvent) => boolean): Promise<void> {
  let seen = 0;
  return new Promise((resolve) => {
    const off = runtime.subscribe(`count-${Math.random()}`, (e) => {
      if (match(e) && ++seen === count) {
        off();
        resolve();
      }
    });
  });
}

describe("relaytraceTelemetry: tool executions and runs", () => {
  it.each([
    ["as the SDK sends them", {}],
    ["when the SDK strips the inputs (recordInputs: false)", { recordInputs: false }],
  ])("two executions sharing a tool call id are two scopes, each ended with its own result, %s", async (_how, settings) => {
    provider = await startScriptedProvider({
      model: "gpt-4.1-mini",
      turns: [
        {
          toolCalls: [
            { id: "call_dup", name: "lookup", arguments: { key: "first" } },
            { id: "call_dup", name: "lookup", arguments: { key: "second" } },
          ],
        },
        { text: "both looked up" },
      ],
    });
    const run = integrationRun();
    const rt = run.runtime;
    // The first execution returns only once the second one's end is recorded: its end comes last.
    const secondEnded = published(rt, (e) => e.kind === "scope" && e.scope_category === "end" && e.data === "value of second");
    const lookup = tool({
      description: "Look a key up",
      inputSchema: jsonSchema<{ key: string }>({ type: "object", properties: { key: { type: "string" } }, required: ["key"] }),
      execute: async ({ key }) => {
        rt.mark(`inside ${key}`);
        if (key === "first") await secondEnded;
        return `value of ${key}`;
      },
    });
    const result = await generateText({
      model: modelAt(provider.url),
      tools: { lookup },
      stopWhen: isStepCount(3),
      prompt: "Look both up",
      telemetry: { integrations: [relaytraceTelemetry({ runtime: rt })], ...settings },
    });
    expect(result.text).toBe("both looked up");

    const { events } = await run.finish();
    const toolStarts = starts(events, "tool");
    const toolEnds = ends(events, "tool");
    expect(toolStarts).toHaveLength(2);
    expect(new Set(toolStarts.map((s) => s.uuid)).size).toBe(2);
    expect(toolEnds.map((e) => e.data)).toEqual(["value of second", "value of first"]); // the second ended first
    for (const key of ["first", "second"]) {
      // the code an execution ran nests under its scope, and that scope ends once, with its result
      const mark = events.find((e): e is MarkEvent => e.kind === "mark" && e.name === `inside ${key}`)!;
      const start = toolStarts.find((s) => s.uuid === mark.parent_uuid);
      expect(start?.category_profile?.["tool_call_id"]).toBe("call_dup");
      expect(toolEnds.filter((e) => e.uuid === mark.parent_uuid).map((e) => e.data)).toEqual([`value of ${key}`]);
    }
  });

  it("runs the SDK never ends are bounded: past maxOpenRuns the oldest is ended with an error and counted", async () => {
    provider = await startScriptedProvider({ model: "gpt-4.1-mini", turns: () => ({ text: "hello" }) });
    const run = integrationRun();
    const telemetry = relaytraceTelemetry({ runtime: run.runtime, maxOpenRuns: 2 });
    const model = modelAt(provider.url);
    const abort = new AbortController();
    const threeStarted = publishedCount(
      run.runtime,
      3,
      (e) => e.kind === "scope" && e.scope_category === "start" && e.category === "agent",
    );
    // Streams nobody reads nor aborts: the SDK reports no end for them.
    for (const who of ["one", "two", "three"]) {
      void streamText({ model, prompt: `Hi ${who}`, abortSignal: abort.signal, telemetry: { integrations: [telemetry], functionId: who } });
    }
    await threeStarted;
    await run.runtime.flush();

    expect(telemetry.openRunCount()).toBe(2);
    expect(telemetry.diagnostics()).toEqual([
      { code: "ai_sdk.unended_run_dropped", message: expect.stringContaining("more than 2 runs open: one"), count: 1 },
    ]);
    const { events } = await run.finish();
    const ended = ends(events, "agent");
    expect(ended.map((e) => e.name)).toEqual(["one"]);
    expect(ended[0]!.metadata).toMatchObject({ "otel.status_code": "ERROR" });
    abort.abort(); // the two runs still open end with the abort
  });
});
