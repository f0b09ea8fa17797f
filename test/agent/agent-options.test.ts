import { describe, expect, it } from "vitest";
import { createRuntime } from "../../src/runtime/runtime.js";
import { createClient, createToolkit, defineTool, relayTool, type ClientOptions } from "../../src/agent/index.js";

describe("wrong options fail loudly at construction", () => {
  const good: ClientOptions = { baseUrl: "http://127.0.0.1:9/v1", style: "openai", model: "m", runtime: createRuntime() };
  const make = (o: Record<string, unknown>) => () => createClient(o as unknown as ClientOptions);

  it("rejects a missing baseUrl, an unknown style, a missing model and a bad maxTurns", () => {
    const { baseUrl: _b, ...noBase } = good;
    const { model: _m, ...noModel } = good;
    expect(make(noBase)).toThrow(TypeError);
    expect(make(noBase)).toThrow(/baseUrl/);
    expect(make({ ...good, style: "cohere" as never })).toThrow(
      /option "style" must be one of "anthropic", "gemini", "openai", "openai-responses"/,
    );
    expect(make(noModel)).toThrow(/model/);
    for (const bad of [0, -1, 1.5, "3"]) expect(make({ ...good, maxTurns: bad })).toThrow(/maxTurns/);
    expect(make({ ...good, maxTurns: 3 })).not.toThrow();
  });

  it("rejects an unknown key, pointing at the closest known one", () => {
    expect(make({ ...good, base_url: "x" })).toThrow(/unknown option "base_url" \(did you mean "baseUrl"\?\)/);
    expect(make({ ...good, max_turns: 2 })).toThrow(/did you mean "maxTurns"/);
    expect(make({ ...good, sytemPrompt: "hi" })).toThrow(/did you mean "systemPrompt"/);
    const unrelated = make({ ...good, frobnicate: true });
    expect(unrelated).toThrow(TypeError);
    expect(unrelated).toThrow(/unknown option "frobnicate"; known options: baseUrl, style, model/);
  });

  it("defineTool and relayTool reject a missing execute, an empty name and names providers refuse", () => {
    const schema = { type: "object", properties: {} };
    expect(() => defineTool({ name: "t", description: "d", inputSchema: schema } as never)).toThrow(/execute/);
    expect(() => defineTool({ name: "", description: "d", execute: () => "x" })).toThrow(TypeError);
    expect(() => defineTool({ name: "has.dot", description: "d", execute: () => "x" })).toThrow(/invalid tool name "has\.dot"/);
    expect(() => defineTool({ name: "x".repeat(65), description: "d", execute: () => "x" })).toThrow(TypeError);
    expect(defineTool({ name: "x".repeat(64), description: "d", execute: () => "x" }).name).toHaveLength(64);
    expect(() => relayTool("has space", "d")).toThrow(/invalid tool name "has space"/);
    expect(() => relayTool("", "d")).toThrow(TypeError);
  });

  it("createToolkit rejects two of the caller's tools sharing a name; shadowing a built-in stays allowed", async () => {
    const tool = (name: string, out: string) => defineTool({ name, description: "d", execute: () => out });
    await expect(createToolkit({ tools: [tool("dup", "a"), tool("dup", "b")] })).rejects.toThrow(/two tools share the name "dup"/);
    const kit = await createToolkit({ builtins: true, tools: [tool("read", "mine")] });
    expect((await kit.execute("read", {})).output).toBe("mine");
  });
});
