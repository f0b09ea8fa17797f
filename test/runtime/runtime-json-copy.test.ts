// What the runtime records of app values JSON.stringify would empty: own `__proto__` keys, Maps,
// Sets and Errors keep their content in the exported event (a real ATOF file); what has no JSON
// form is counted in a diagnostic instead of vanishing silently.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AtofExporter } from "../../exporters/atof/index.js";
import type { AtofEvent } from "../../src/events/types.js";
import { createRuntime, type Runtime } from "../../src/runtime/runtime.js";

let dir = "";
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "relaytrace-json-copy-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The events `app` emits, read back from a real ATOF file. */
async function recorded(name: string, app: (rt: Runtime) => void | Promise<void>): Promise<{ rt: Runtime; events: AtofEvent[] }> {
  const rt = createRuntime();
  const path = join(dir, `${name}.jsonl`);
  new AtofExporter({ type: "file", path, mode: "overwrite" }).register(rt);
  await app(rt);
  await rt.shutdown();
  const events = (await readFile(path, "utf8"))
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as AtofEvent);
  return { rt, events };
}

const dataOf = (events: AtofEvent[], name: string) => events.find((e) => e.name === name)!.data as Record<string, unknown>;

describe("values JSON.stringify would empty keep their content", () => {
  it("an own __proto__ key stays an own key, at any level, and nothing is polluted", async () => {
    const parsed = JSON.parse('{"__proto__": {"isAdmin": true}, "user": {"__proto__": "plain text", "id": 7}}') as unknown;
    const { rt, events } = await recorded("proto", (rt) => void rt.mark("request", { data: parsed, metadata: parsed }));
    const data = dataOf(events, "request");
    expect(Object.keys(data)).toEqual(["__proto__", "user"]);
    expect(Object.getOwnPropertyDescriptor(data, "__proto__")?.value).toEqual({ isAdmin: true });
    expect(Object.getOwnPropertyDescriptor(data["user"], "__proto__")?.value).toBe("plain text");
    expect(Object.keys(events[0]!.metadata as object)).toEqual(["__proto__", "user"]);
    expect(({} as { isAdmin?: boolean }).isAdmin).toBeUndefined();
    expect(rt.diagnostics().map((d) => d.code)).not.toContain("payload_not_json");
  });

  it("a Map records its entries, a Set its values, an Error its name, message, stack, cause and own fields", async () => {
    const cause = new TypeError("socket closed");
    const error = Object.assign(new Error("upstream failed", { cause }), { code: "E_UPSTREAM", status: 502 });
    const value = {
      headers: new Map<unknown, unknown>([
        ["x-id", "abc"],
        [42, { nested: new Set(["a", "b"]) }],
      ]),
      tags: new Set([1, 2, 3]),
      error,
      aggregate: new AggregateError([new RangeError("r1")], "many"),
    };
    const { rt, events } = await recorded("collections", (rt) => void rt.mark("state", { data: value }));
    const data = dataOf(events, "state");
    expect(data["headers"]).toEqual([
      ["x-id", "abc"],
      [42, { nested: ["a", "b"] }],
    ]);
    expect(data["tags"]).toEqual([1, 2, 3]);
    expect(data["error"]).toMatchObject({
      name: "Error",
      message: "upstream failed",
      stack: expect.stringContaining("upstream failed"),
      cause: { name: "TypeError", message: "socket closed" },
      code: "E_UPSTREAM",
      status: 502,
    });
    expect(data["aggregate"]).toMatchObject({ name: "AggregateError", message: "many", errors: [{ name: "RangeError", message: "r1" }] });
    expect(rt.diagnostics().map((d) => d.code)).not.toContain("payload_not_json");
  });

  it("a Map that holds itself is a cycle, not a crash", async () => {
    const map = new Map<string, unknown>();
    map.set("self", map);
    const { events } = await recorded("map-cycle", (rt) => void rt.mark("loop", { data: { map } }));
    expect(dataOf(events, "loop")["map"]).toEqual([["self", "[Circular]"]]);
  });

  it("boxed primitives, RegExps and typed arrays record their values", async () => {
    const value = { s: new String("text"), n: new Number(3), b: new Boolean(false), re: /a+b/gi, bytes: new Uint8Array([1, 2, 255]) };
    const { events } = await recorded("boxed", (rt) => void rt.mark("boxed", { data: value }));
    expect(dataOf(events, "boxed")).toEqual({ s: "text", n: 3, b: false, re: "/a+b/gi", bytes: [1, 2, 255] });
  });

  it("what has no JSON form (an ArrayBuffer, a WeakMap, a Promise) is counted in a diagnostic, not emptied silently", async () => {
    const value = { buffer: new ArrayBuffer(8), weak: new WeakMap(), pending: Promise.resolve(1) };
    const { rt, events } = await recorded("no-json-form", (rt) => void rt.mark("opaque", { data: value }));
    expect(dataOf(events, "opaque")).toEqual({ buffer: {}, weak: {}, pending: {} });
    const diagnostic = rt.diagnostics().find((d) => d.code === "payload_not_json");
    expect(diagnostic?.message).toMatch(/3 value\(s\) were not JSON \(first: ArrayBuffer has no JSON form\)/);
  });

  it("an event sanitizer's replacement is copied the same way, and what it could not keep is counted", async () => {
    const { rt, events } = await recorded("sanitizer", (rt) => {
      rt.registerMarkSanitizer("rewrite", 1, () => ({
        data: JSON.parse('{"__proto__": {"kept": 1}}') as never,
        metadata: { seen: new Set(["x"]), buffer: new ArrayBuffer(2) } as never,
      }));
      rt.mark("m");
    });
    const mark = events.find((e) => e.name === "m")!;
    expect(Object.getOwnPropertyDescriptor(mark.data, "__proto__")?.value).toEqual({ kept: 1 });
    expect(mark.metadata).toEqual({ seen: ["x"], buffer: {} });
    expect(rt.diagnostics().find((d) => d.code === "payload_not_json")?.message).toMatch(/event sanitizer rewrite: 1 value/);
  });
});
