// `relaytrace view A --diff B` reads the runs for its Diff tab as `relaytrace diff` does (as
// streams, lined up within a window) and keeps each step only as the tab shows it, every value
// cut to 2,000 characters: the waterfall already holds the runs whole (the span detail shows
// each value whole), so the comparison costs about what `view A B` costs, not three times more.
// (What `view` itself holds, every span of its inputs, is measured in docs/cli-and-viewer.md.)
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { capturedIo } from "../support/cli-io.js";
import { writeModelCallRecording } from "../support/model-call-recording.js";
import { useScratchTmpdir } from "../support/scratch-tmpdir.js";

const scratch = useScratchTmpdir("relaytrace-view-diff-bounded-");

/** `calls` model calls, each answering `${i}:` and 128 KiB of `letter`. */
async function recording(name: string, calls: number, letter: string): Promise<string> {
  const path = join(scratch.dir, name);
  await writeModelCallRecording(path, { calls, uuidPrefix: letter, answer: (i) => `${i}:` + letter.repeat(128 * 1024) });
  return path;
}

interface EmbeddedDoc {
  spans: { kind: string; output: { choices: { message: { content: string } }[] } }[];
  diff: {
    changeCount: number;
    steps: {
      step: number;
      a: { model: { text: string } };
      b: { model: { text: string } };
      changes: { kind: string; a: string; b: string }[];
    }[];
  };
}

async function embedded(path: string): Promise<EmbeddedDoc> {
  const html = await readFile(path, "utf8");
  return JSON.parse(/<script type="application\/json" id="relaytrace-data">([\s\S]*?)<\/script>/.exec(html)![1]!) as EmbeddedDoc;
}

describe("view A --diff B", () => {
  it("shows each value in the Diff tab cut to 2,000 characters, the span detail whole", async () => {
    const a = await recording("a3.jsonl", 3, "a");
    const b = await recording("b3.jsonl", 3, "b");
    const out = join(scratch.dir, "cut.html");
    expect(await main(["view", a, "--diff", b, "-o", out], capturedIo())).toBe(0);
    const doc = await embedded(out);
    expect(doc.diff.changeCount).toBe(3);
    const [first] = doc.diff.steps;
    const cut = (letter: string) => "0:" + letter.repeat(1998) + `… (${2 + 128 * 1024} characters)`;
    expect(first!.a.model.text).toBe(cut("a"));
    expect(first!.b.model.text).toBe(cut("b"));
    expect(first!.changes).toEqual([{ kind: "output_changed", step: 1, a: cut("a"), b: cut("b") }]);
    const outputs = doc.spans.filter((s) => s.kind === "llm").map((s) => s.output.choices[0]!.message.content);
    expect(outputs).toContain("0:" + "a".repeat(128 * 1024));
    expect(outputs).toContain("0:" + "b".repeat(128 * 1024));
  });

  it("writes a page about the size of `view A B`: the comparison does not embed the runs again", async () => {
    const a = await recording("a20.jsonl", 20, "a");
    const b = await recording("b20.jsonl", 20, "b");
    const both = join(scratch.dir, "both.html");
    const compared = join(scratch.dir, "compared.html");
    expect(await main(["view", a, b, "-o", both], capturedIo())).toBe(0);
    const io = capturedIo();
    expect(await main(["view", a, "--diff", b, "-o", compared], io)).toBe(0);
    expect(io.stderr.at(-1)).toMatch(/20 changes\)$/);
    // Before, each step's texts were embedded twice more (the steps, and the change's both values).
    expect((await stat(compared)).size).toBeLessThan(1.05 * (await stat(both)).size);
  });
});
