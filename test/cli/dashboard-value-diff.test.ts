// The comparison's changed values: two recorded values side by side as indented JSON, only what
// differs marked (a changed scalar, a key or an item one side lacks, the words that differ in a
// string), a string holding JSON compared as JSON. What the page draws, piece by piece.
import { describe, expect, it } from "vitest";
import { diffValues, type Piece } from "../../src/cli/dashboard/client/value-diff.js";

const marked = (pieces: Piece[]) => pieces.filter((p) => p.change).map((p) => [p.change, p.text]);
const text = (pieces: Piece[]) => pieces.map((p) => p.text).join("");

describe("diffValues", () => {
  it("marks the one value that changed inside a tool result held as JSON text, and nothing around it", () => {
    const a = { output: JSON.stringify({ city: "Oslo", temp_c: 4 }), isError: false };
    const b = { output: JSON.stringify({ city: "Oslo", temp_c: 12 }), isError: false };
    const d = diffValues(a, b);
    expect(marked(d.a)).toEqual([["changed", "4"]]);
    expect(marked(d.b)).toEqual([["changed", "12"]]);
    expect(text(d.a)).toBe('{\n  "output": {\n    "city": "Oslo",\n    "temp_c": 4\n  },\n  "isError": false\n}');
    expect(text(d.b)).toContain('"temp_c": 12');
  });

  it("marks the words that differ in two texts", () => {
    const d = diffValues("Oslo: 4 °C with light rain.", "Oslo: 12 °C with heavy rain.");
    expect(marked(d.a)).toEqual([
      ["changed", "4"],
      ["changed", "light"],
    ]);
    expect(marked(d.b)).toEqual([
      ["changed", "12"],
      ["changed", "heavy"],
    ]);
  });

  it("marks a whole text that shares nothing, and a value whose type changed", () => {
    expect(marked(diffValues("yes", "no").b)).toEqual([["changed", '"no"']]);
    expect(marked(diffValues({ n: 1 }, { n: "1" }).b)).toEqual([["changed", '"1"']]);
    expect(marked(diffValues(null, "text").a)).toEqual([["changed", "null"]]);
  });

  it("marks a key only one side has as removed or added, and keeps the lines side by side", () => {
    const d = diffValues({ inputTokens: 50, outputTokens: 9 }, { inputTokens: 50, outputTokens: 12, costUsd: 0.1 });
    expect(marked(d.a)).toEqual([["changed", "9"]]);
    expect(marked(d.b)).toEqual([
      ["changed", "12"],
      ["added", '"costUsd": 0.1'],
    ]);
    // Each side is JSON of its own: no comma before a member the side does not have.
    expect(JSON.parse(text(d.a))).toEqual({ inputTokens: 50, outputTokens: 9 });
    expect(JSON.parse(text(d.b))).toEqual({ inputTokens: 50, outputTokens: 12, costUsd: 0.1 });
    const r = diffValues({ keep: 1, drop: [1, 2] }, { keep: 1 });
    expect(marked(r.a)).toEqual([["removed", '"drop": [\n    1,\n    2\n  ]']]);
    expect(text(r.b).split("\n")).toHaveLength(text(r.a).split("\n").length);
  });

  it("lines up arrays by what they share: an item put in front is one added item, not every item changed", () => {
    const d = diffValues({ calls: ["a", "b", "c"] }, { calls: ["z", "a", "b", "c"] });
    expect(marked(d.a)).toEqual([]);
    expect(marked(d.b)).toEqual([["added", '"z"']]);
  });

  it("marks nothing in equal values (key order aside)", () => {
    const d = diffValues({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 });
    expect(marked(d.a)).toEqual([]);
    expect(marked(d.b)).toEqual([]);
  });

  it("compares values nested deeper than the call stack goes: field by field at the top, whole further down", () => {
    let a: unknown = 1;
    let b: unknown = 2;
    for (let i = 0; i < 20_000; i++) {
      a = { x: a };
      b = { x: b };
    }
    const d = diffValues({ same: true, deep: a }, { same: true, deep: b });
    expect(d.a.filter((p) => p.change)).toHaveLength(1);
    const mark = d.b.find((p) => p.change)!;
    expect(mark.change).toBe("changed");
    expect(mark.text.trim().startsWith("{")).toBe(true);
    expect(mark.text).toContain("2");
    expect(text(d.a)).toMatch(/^\{\n {2}"same": true,\n/);
  });
});
