import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AtofEvent } from "../../src/events/types.js";
import { main } from "../../src/cli/main.js";
import { capturedIo } from "../support/cli-io.js";
import { recordRun } from "../support/recorded-run.js";
import { useScratchTmpdir } from "../support/scratch-tmpdir.js";

const scratch = useScratchTmpdir("relaytrace-view-diff-");

async function file(name: string, text: string): Promise<string> {
  const path = join(scratch.dir, name);
  await writeFile(path, text);
  return path;
}

const jsonl = (events: readonly AtofEvent[]) => events.map((e) => JSON.stringify(e)).join("\n") + "\n";

/** The document a page embeds. */
async function embedded(
  path: string,
): Promise<{ diff?: { equal: boolean; changeCount: number }; spans: { kind: string; diff?: string }[] }> {
  const html = await readFile(path, "utf8");
  const json = /<script type="application\/json" id="relaytrace-data">([\s\S]*?)<\/script>/.exec(html)![1]!;
  return JSON.parse(json) as never;
}

describe("relaytrace view A --diff B", () => {
  it("embeds both runs and their step comparison, the changed model calls marked, in one page", async () => {
    const a = await recordRun("anthropic");
    const b = await recordRun("anthropic", undefined, undefined, { temp: 9 });
    const out = join(scratch.dir, "diff.html");
    const io = capturedIo();
    expect(
      await main(["view", await file("a.jsonl", jsonl(a.events)), "--diff", await file("b.jsonl", jsonl(b.events)), "-o", out], io),
    ).toBe(0);
    const doc = await embedded(out);
    expect(doc.diff).toMatchObject({ equal: false, changeCount: 1 });
    expect(doc.spans.filter((s) => s.kind === "llm").map((s) => s.diff ?? "")).toEqual(["changed", "", "changed", ""]);
    expect(io.stderr.at(-1)).toMatch(/1 change\)$/);
  });

  it("lines the steps up as relaytrace diff does: an extra model call is a step only B has, one change", async () => {
    const turn = (city: string, id: string) => ({ toolCalls: [{ id, name: "get_weather", arguments: { city } }] });
    const answer = { text: "Done." };
    const a = await recordRun("openai", "Weather?", [turn("Oslo", "c1"), answer]);
    const b = await recordRun("openai", "Weather?", [turn("Oslo", "c1"), turn("Bergen", "c2"), answer]);
    const out = join(scratch.dir, "inserted.html");
    expect(
      await main(
        ["view", await file("a.jsonl", jsonl(a.events)), "--diff", await file("b.jsonl", jsonl(b.events)), "-o", out],
        capturedIo(),
      ),
    ).toBe(0);
    const diff = (await embedded(out)).diff as unknown as {
      changeCount: number;
      steps: { step: number; a: unknown; b: unknown; changes: unknown[] }[];
    };
    expect(diff.changeCount).toBe(1);
    expect(diff.steps.map((s) => [s.step, s.a !== null, s.b !== null, s.changes.length])).toEqual([
      [1, true, true, 0],
      [2, false, true, 1],
      [3, true, true, 0],
    ]);
  });

  it("takes one file A and an ATOF file B, else one clear line and exit 2", async () => {
    const a = await file("a.jsonl", jsonl((await recordRun("openai")).events));
    const atif = await file(
      "b.json",
      JSON.stringify({ schema_version: "ATIF-v1.7", session_id: "s", agent: { name: "x", version: "1" }, steps: [] }),
    );
    const io = capturedIo();
    expect(await main(["view", a, "--diff", atif, "-o", join(scratch.dir, "x.html")], io)).toBe(2);
    expect(io.stderr.join("\n")).toContain("--diff compares ATOF event logs");
    const two = capturedIo();
    expect(await main(["view", a, a, "--diff", a, "-o", join(scratch.dir, "y.html")], two)).toBe(2);
    expect(two.stderr.join("\n")).toContain("view A --diff B takes one file A (got 2)");
  });
});
