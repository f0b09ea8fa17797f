import { describe, expect, it } from "vitest";
import { hiddenRoot, ScopeStack } from "../../src/events/scope-stack.js";

const frame = (uuid: string) => hiddenRoot(uuid, uuid, "function");

describe("ScopeStack snapshots", () => {
  it("are independent: pushes and pops on either side never show on the other", () => {
    const original = new ScopeStack([frame("root")]);
    original.push(frame("a"));
    const snap = original.snapshot();
    original.push(frame("b"));
    snap.push(frame("c"));
    expect(original.frames.map((f) => f.uuid)).toEqual(["root", "a", "b"]);
    expect(snap.frames.map((f) => f.uuid)).toEqual(["root", "a", "c"]);
    const second = snap.snapshot();
    snap.pop();
    snap.pop();
    expect(snap.frames.map((f) => f.uuid)).toEqual(["root"]);
    expect(second.frames.map((f) => f.uuid)).toEqual(["root", "a", "c"]);
    expect(original.frames.map((f) => f.uuid)).toEqual(["root", "a", "b"]);
  });
});
