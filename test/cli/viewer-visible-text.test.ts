import { describe, expect, it } from "vitest";
import { visibleText } from "../../src/cli/viewer/client/visible-text.js";

describe("the viewer's visible text", () => {
  it("escapes bidi embeddings, overrides, isolates and marks, so a name cannot reorder itself", () => {
    expect(visibleText("invoice_\u202Efdp.exe")).toBe("invoice_\\u202efdp.exe");
    const hiding = ["\u202A", "\u202B", "\u202C", "\u202D", "\u202E", "\u2066", "\u2067", "\u2068", "\u2069", "\u200E", "\u200F", "\u061C"];
    for (const ch of hiding) expect(visibleText(`a${ch}b`)).toBe(`a\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}b`);
  });

  it("escapes terminal controls and line separators but keeps line ends, tabs and ordinary text", () => {
    expect(visibleText("a\u001b[2Jb\rc\u2028d")).toBe("a\\u001b[2Jb\\u000dc\\u2028d");
    expect(visibleText("line 1\n\tline 2 — ünïcödé, 日本語, עברית")).toBe("line 1\n\tline 2 — ünïcödé, 日本語, עברית");
  });
});
