import { describe, expect, it } from "vitest";
import { createRuntime } from "../../src/runtime/runtime.js";
import { capturingRuntime } from "../support/capture.js";

describe("option bags are checked", () => {
  it("an unknown or snake_case option is an error naming it, not silently lost data", async () => {
    const { rt, settle } = capturingRuntime();
    expect(() => createRuntime({ maxQueSize: 5 } as never)).toThrow(
      'createRuntime: unknown option "maxQueSize" (did you mean "maxQueueSize"?)',
    );
    expect(() => rt.mark("m", { category_profile: { subtype: "x" } } as never)).toThrow(
      'mark: unknown option "category_profile" (did you mean "categoryProfile"?)',
    );
    await expect(rt.executeTool("t", {}, () => ({ result: 1 }), { tool_call_id: "c1" } as never)).rejects.toThrow(
      'executeTool: unknown option "tool_call_id" (did you mean "toolCallId"?)',
    );
    await expect(rt.withScope("s", () => 1, { categry: "agent" } as never)).rejects.toThrow(
      'withScope: unknown option "categry" (did you mean "category"?)',
    );
    expect(() => rt.registerMarkSanitizer("s", 0, (_e, f) => f, { scpe: undefined } as never)).toThrow(
      'register: unknown option "scpe" (did you mean "scope"?)',
    );
    expect(await settle()).toEqual([]); // nothing was emitted by the refused calls
  });

  it("the producer API emits only the ATOF category vocabulary", async () => {
    const { rt } = capturingRuntime();
    await expect(rt.withScope("s", () => 1, { category: "Agent" as never })).rejects.toThrow(/category must be one of agent, function/);
    expect(() => rt.mark("m", { category: "widget" })).toThrow(/category must be one of/);
    rt.registerToolExecutionIntercept("bad-mark", 0, async (args, next) => ({
      ...(await next(args)),
      pendingMarks: [{ name: "p", category: "widget" }],
    }));
    await expect(rt.executeTool("t", {}, () => ({ result: 1 }))).rejects.toThrow(/category must be one of/);
  });

  it("a value of the wrong type is an error naming the option, what it must be and what it got, before anything is emitted", async () => {
    const { rt, settle } = capturingRuntime();
    await expect(rt.executeTool("t", {}, () => ({ result: 1 }), { toolCallId: 7 } as never)).rejects.toThrow(
      "executeTool: toolCallId must be a string (got 7)",
    );
    await expect(rt.withScope("s", () => 1, { attributes: "remote" } as never)).rejects.toThrow(
      'withScope: attributes must be a list of strings (got "remote")',
    );
    expect(() => rt.pushScope("s", { parent: "root" } as never)).toThrow(
      'pushScope: parent must be a scope handle ({ uuid }) (got "root")',
    );
    expect(() => rt.mark("m", { severity: "loud" } as never)).toThrow(/mark: severity must be one of "trace", "debug"/);
    await expect(rt.executeLlm("l", { content: {} }, () => ({}), { signal: {} } as never)).rejects.toThrow(
      "executeLlm: signal must be an AbortSignal (got an object)",
    );
    expect(() => rt.startLlm("l", { content: {} }, { dataSchema: { name: "x" } } as never)).toThrow(
      "startLlm: dataSchema must be { name: string, version: string } (got an object)",
    );
    expect(() => createRuntime({ maxQueueSize: 0 })).toThrow("createRuntime: maxQueueSize must be a positive integer (got 0)");
    expect(() => rt.startTool("t", {}, "c1" as never)).toThrow('startTool: options must be an object (got "c1")');
    // An undefined value is an absent key.
    await rt.executeTool("ok", {}, () => ({ result: 1 }), { toolCallId: undefined, signal: undefined });
    expect((await settle()).map((e) => e.name)).toEqual(["ok", "ok"]);
  });
});
