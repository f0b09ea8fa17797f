// A call that fails rejects with its own error, even when recording its failure fails too: what
// the failed end needs (here the runtime's clock, which the app supplies) throwing is counted as
// `failure_not_recorded`, never thrown in place of the app's error.
import { describe, expect, it } from "vitest";
import { createRuntime } from "../../src/runtime/runtime.js";
import type { Runtime } from "../../src/runtime/runtime.js";
import type { AtofEvent } from "../../src/events/types.js";
import { labels } from "../support/capture.js";

/** A runtime whose clock works until `breakClock()`, then throws on every reading. */
function runtimeWithBreakableClock(): { rt: Runtime; events: AtofEvent[]; breakClock(): void } {
  let broken = false;
  let us = 1_700_000_000_000_000;
  const rt = createRuntime({
    clock: {
      nowUs: () => {
        if (broken) throw new Error("clock broke");
        return (us += 10);
      },
    },
  });
  const events: AtofEvent[] = [];
  rt.subscribe("capture", (e) => void events.push(e));
  return { rt, events, breakClock: () => (broken = true) };
}

const notRecorded = (rt: Runtime) => rt.diagnostics().filter((d) => d.code === "failure_not_recorded");

describe("a failure while recording a failure never replaces the call's error", () => {
  it("a tool that throws synchronously rejects with its error", async () => {
    const { rt, events, breakClock } = runtimeWithBreakableClock();
    const call = () =>
      rt.executeTool("lookup", {}, () => {
        breakClock();
        throw new Error("tool broke");
      });
    await expect(call()).rejects.toThrow("tool broke");
    await rt.flush();
    expect(labels(events)).toEqual(["start:tool:lookup"]);
    expect(notRecorded(rt)).toEqual([
      {
        code: "failure_not_recorded",
        message: expect.stringContaining("tool lookup: recording its failure threw (clock broke)"),
        count: 1,
      },
    ]);
  });

  it("a tool whose promise rejects, an LLM call and a scope body reject with their own errors", async () => {
    const { rt, breakClock } = runtimeWithBreakableClock();
    await expect(
      rt.executeTool("lookup", {}, async () => {
        breakClock();
        throw new Error("async tool broke");
      }),
    ).rejects.toThrow("async tool broke");
    const second = runtimeWithBreakableClock();
    await expect(
      second.rt.executeLlm("model", { messages: [] }, () => {
        second.breakClock();
        throw new Error("model broke");
      }),
    ).rejects.toThrow("model broke");
    const third = runtimeWithBreakableClock();
    await expect(
      third.rt.withScope("request", () => {
        third.breakClock();
        throw new Error("body broke");
      }),
    ).rejects.toThrow("body broke");
    for (const runtime of [rt, second.rt, third.rt]) expect(notRecorded(runtime).map((d) => d.count)).toEqual([1]);
  });

  it("a guardrail that throws fails the call with its error", async () => {
    const { rt, breakClock } = runtimeWithBreakableClock();
    rt.registerToolConditionalGuardrail("policy", 0, () => {
      breakClock();
      throw new Error("guardrail broke");
    });
    let ran = false;
    await expect(rt.executeTool("lookup", {}, () => ({ result: (ran = true) }))).rejects.toThrow("guardrail broke");
    expect(ran).toBe(false);
    expect(notRecorded(rt)[0]?.message).toContain("guardrail policy");
  });

  it("a stream whose source fails rejects the consumer with the source's error", async () => {
    const { rt, breakClock } = runtimeWithBreakableClock();
    const chunks: unknown[] = [];
    const consume = async () => {
      for await (const chunk of rt.executeLlmStream("model.stream", { messages: [] }, async function* () {
        yield "a";
        breakClock();
        throw new Error("stream broke");
      }))
        chunks.push(chunk);
    };
    await expect(consume()).rejects.toThrow("stream broke");
    expect(chunks).toEqual(["a"]);
    expect(notRecorded(rt)[0]?.message).toContain("llm model.stream");
  });
});
