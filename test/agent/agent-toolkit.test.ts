import { describe, expect, it } from "vitest";
import {
  createToolkit,
  defineTool,
  pending,
  pendingOf,
  relayAnswer,
  relayCallsOf,
  relayTool,
  isRelayRequest,
  RELAY_KIND,
} from "../../src/agent/index.js";

const add = defineTool({
  name: "add",
  description: "adds",
  inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
  execute: (args) => String((args.a as number) + (args.b as number)),
});

describe("defineTool", () => {
  it("validates arguments against the schema and names the failing path", async () => {
    expect(await add.execute({ a: 1, b: 2 })).toEqual({ output: "3", isError: false });
    expect(await add.execute({ a: "x", b: 2 })).toEqual({ output: "invalid arguments for add: /a must be number", isError: true });
    const missing = await add.execute({ a: 1 });
    expect(missing.isError).toBe(true);
    expect(missing.output).toContain("must have required property 'b'");
  });

  it("normalizes strings, JSON values and thrown errors into tool results", async () => {
    const json = defineTool({ name: "j", description: "", execute: () => ({ x: [1, 2] }) });
    expect(await json.execute({})).toEqual({ output: '{"x":[1,2]}', isError: false });
    const boom = defineTool({
      name: "boom",
      description: "",
      execute: () => {
        throw new Error("disk on fire");
      },
    });
    expect(await boom.execute({})).toEqual({ output: "disk on fire", isError: true });
    const explicit = defineTool({ name: "e", description: "", execute: () => ({ output: "nope", isError: true }) });
    expect(await explicit.execute({})).toEqual({ output: "nope", isError: true });
  });

  it("keeps what execute threw on the error result, out of its printed and serialized form", async () => {
    const thrown = new RangeError("disk on fire");
    const boom = defineTool({
      name: "boom",
      description: "",
      execute: () => {
        throw thrown;
      },
    });
    const result = await boom.execute({});
    expect(result.error).toBe(thrown);
    expect(Object.keys(result)).toEqual(["output", "isError"]);
    expect(JSON.stringify(result)).toBe('{"output":"disk on fire","isError":true}');
    const slow = defineTool({ name: "slow", description: "", timeoutMs: 5, execute: () => new Promise(() => undefined) });
    const timedOut = await slow.execute({});
    expect(timedOut).toEqual({ output: "tool slow timed out after 5 ms", isError: true });
    expect((timedOut.error as Error).name).toBe("TimeoutError");
  });

  it("rejects an invalid schema at definition time", () => {
    expect(() => defineTool({ name: "bad", description: "", inputSchema: { type: "nonsense" }, execute: () => "" })).toThrow(
      /invalid inputSchema for tool bad/,
    );
  });
});

describe("pending", () => {
  it("builds a suspension result with a generated id and the url on its own line", () => {
    const r = pending({ kind: "authorization", prompt: "log in", url: "https://auth.example/x" });
    expect(r.output).toBe("log in\nhttps://auth.example/x");
    expect(r.isError).toBe(true);
    const req = pendingOf(r)!;
    expect(req.id).toMatch(/^pnd-[0-9a-z]+-\d+$/);
    expect(req).toMatchObject({ kind: "authorization", prompt: "log in", url: "https://auth.example/x" });
    expect(pendingOf({ output: "x", isError: false })).toBeUndefined();
    expect(pendingOf(pending({ id: "r1", kind: "input", prompt: "p" }))!.id).toBe("r1");
  });
});

describe("toolkit", () => {
  it("returns an error result for an unknown tool and adapts declarations to both dialects", async () => {
    const tk = await createToolkit({ tools: [add] });
    expect(await tk.execute("nope", {})).toEqual({ output: "Unknown tool: nope", isError: true });
    expect(tk.toOpenAI()[0]).toEqual({ type: "function", function: { name: "add", description: "adds", parameters: add.inputSchema } });
    expect(tk.toAnthropic()[0]).toEqual({ name: "add", description: "adds", input_schema: add.inputSchema });
    expect(tk.declarations()).toEqual([{ name: "add", description: "adds", inputSchema: add.inputSchema }]);
  });

  it("rejects a relay tool named like a built-in even with builtins off, names sorted", async () => {
    await expect(createToolkit({ builtins: false, tools: [relayTool("read", "r"), relayTool("bash", "b")] })).rejects.toThrow(
      "toolnexus: relay tool name collides with a built-in tool: [bash read] — rename the relay tool",
    );
    const tk = await createToolkit({ tools: [add] });
    expect(() => tk.register(relayTool("grep", "g"))).toThrow("relay tool name collides with a built-in tool: [grep]");
    // a non-relay tool may shadow a built-in name
    await expect(createToolkit({ tools: [defineTool({ name: "read", description: "", execute: () => "mine" })] })).resolves.toBeDefined();
  });

  it("adds the built-in tools only when asked; user tools shadow them", async () => {
    expect((await createToolkit({})).tools).toHaveLength(0);
    const mine = defineTool({ name: "read", description: "mine", execute: () => "mine" });
    const tk = await createToolkit({ builtins: true, tools: [mine] });
    // the safe set, in toolnexus's order, after the user's tools; bash and webfetch only when named
    expect(tk.tools.map((t) => t.name)).toEqual(["read", "write", "edit", "grep", "glob", "question", "apply_patch", "todowrite"]);
    expect(tk.get("read")!.description).toBe("mine");
    expect((await createToolkit({ builtins: ["webfetch", "bash", "read"] })).tools.map((t) => t.name)).toEqual([
      "bash",
      "read",
      "webfetch",
    ]);
    await expect(createToolkit({ builtins: ["bsh" as "bash"] })).rejects.toThrow(/unknown built-in "bsh" \(did you mean "bash"\?\)/);
    await expect(createToolkit({ workDir: "." } as never)).rejects.toThrow(/unknown option "workDir" \(did you mean "workdir"\?\)/);
    expect(await tk.execute("read", { path: "/nonexistent" })).toEqual({ output: "mine", isError: false });
  });
});

describe("relay helpers", () => {
  it("a relay tool suspends with one unstamped call and resolves an answer by id or shorthand", async () => {
    const t = relayTool("lookup", "l");
    expect(t.source).toBe("relay");
    const first = await t.execute({ q: 1 });
    const req = pendingOf(first)!;
    expect(isRelayRequest(req)).toBe(true);
    expect(req.kind).toBe(RELAY_KIND);
    expect(req.prompt).toBe("relay tool call lookup to the caller for execution");
    expect(relayCallsOf(req)).toEqual([{ id: "", name: "lookup", input: { q: 1 }, arguments: '{"q":1}' }]);
    const byId = relayAnswer(req.id, [{ id: "c9", output: "from host", isError: true }]);
    expect(await t.execute({ q: 1 }, { answer: byId, toolCallId: "c9" })).toEqual({ output: "from host", isError: true });
    expect(await t.execute({}, { answer: { id: req.id, ok: true, data: { output: "short" } } })).toEqual({
      output: "short",
      isError: false,
    });
    expect(await t.execute({}, { answer: { id: req.id, ok: false, reason: "expired" } })).toEqual({
      output: "relay declined for lookup: expired",
      isError: true,
    });
  });
});

describe("toolkit.register", () => {
  it("refuses a name the toolkit already has instead of silently keeping the old tool", async () => {
    const first = defineTool({ name: "lookup", description: "first", execute: () => "first" });
    const second = defineTool({ name: "lookup", description: "second", execute: () => "second" });
    const toolkit = await createToolkit({ tools: [first] });
    expect(() => toolkit.register(second)).toThrow("toolkit already has a tool named lookup");
    expect((await toolkit.execute("lookup", {})).output).toBe("first");
  });
});
