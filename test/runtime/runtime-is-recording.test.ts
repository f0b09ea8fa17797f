import { describe, expect, it } from "vitest";
import { createRuntime } from "../../src/runtime/runtime.js";

describe("runtime.isRecording()", () => {
  it("says whether an event emitted at this point reaches a subscriber: none, global, removed, scope-local", async () => {
    const rt = createRuntime();
    expect(rt.isRecording()).toBe(false);
    const remove = rt.subscribe("all", () => {});
    expect(rt.isRecording()).toBe(true);
    remove();
    expect(rt.isRecording()).toBe(false);
    const seen: boolean[] = [];
    await rt.withScope("request", async (scope) => {
      seen.push(rt.isRecording());
      rt.subscribe("this-request", () => {}, { scope });
      seen.push(rt.isRecording());
      await rt.withScope("nested", async () => void seen.push(rt.isRecording()));
    });
    seen.push(rt.isRecording());
    expect(seen).toEqual([false, true, true, false]);
    await rt.shutdown();
  });
});
