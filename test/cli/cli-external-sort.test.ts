import { mkdir, readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { useScratchTmpdir } from "../support/scratch-tmpdir.js";
import { eventsInTimeOrder } from "../../src/cli/time-ordered-input.js";
import { namedPipeFrom, scopeLine, writeLines } from "../support/atof-files.js";
import { startNode } from "../support/child-process.js";

const BASE = 1_772_366_400_000_000;
// The sort's runs go to os.tmpdir(): the scratch folder, so a test sees what they leave.
const work = useScratchTmpdir("relaytrace-sort-test-");

/** Marks with shuffled timestamps from few distinct values (many ties); uuid = prefix + line index. */
function* shuffledMarks(count: number, prefix: string, seed: number): Generator<string> {
  let x = seed;
  for (let i = 0; i < count; i++) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    const us = BASE + (x % 97);
    yield JSON.stringify({
      kind: "mark",
      atof_version: "0.1",
      uuid: `${prefix}${i}`,
      parent_uuid: null,
      timestamp: us,
      name: "m",
      category: null,
      category_profile: null,
      data: { pad: "p".repeat(40) },
      data_schema: null,
      metadata: null,
    });
  }
}

/** What a stable sort by time of the files' events, concatenated, gives. */
function stableOrder(files: { prefix: string; lines: string[] }[]): string[] {
  const all = files.flatMap((f) => f.lines.map((l) => JSON.parse(l) as { uuid: string; timestamp: number }));
  return all
    .map((e, i) => ({ e, i }))
    .sort((a, b) => a.e.timestamp - b.e.timestamp || a.i - b.i)
    .map(({ e }) => e.uuid);
}

async function collect(files: string[], runBytes: number): Promise<string[]> {
  const uuids: string[] = [];
  for await (const event of eventsInTimeOrder(files, { runBytes })) uuids.push(event.uuid);
  return uuids;
}

/** A named pipe fed once with `lines` by a real writer process: it can be read exactly once. */
async function fifoWith(name: string, lines: string[]): Promise<string> {
  const source = join(work.dir, `${name}.src.jsonl`);
  await writeLines(source, lines);
  return namedPipeFrom(work.dir, name, source);
}

describe("each input file is read once", () => {
  const lines = (n: number, order: (i: number) => number) =>
    Array.from({ length: n }, (_, i) =>
      JSON.stringify({
        kind: "mark",
        atof_version: "0.1",
        uuid: `m${i}`,
        parent_uuid: null,
        timestamp: BASE + order(i),
        name: "m",
        category: null,
        category_profile: null,
        data: null,
        data_schema: null,
        metadata: null,
      }),
    );

  it("a file already in time order (what relaytrace writes) is read once: from a pipe, every event arrives in order", async () => {
    const fifo = await fifoWith(
      "ordered.fifo",
      lines(200, (i) => i),
    );
    const warnings: string[] = [];
    const uuids: string[] = [];
    for await (const event of eventsInTimeOrder([fifo], { onWarning: (_f, w) => void warnings.push(w.code) })) uuids.push(event.uuid);
    expect(uuids).toEqual(Array.from({ length: 200 }, (_, i) => `m${i}`));
    expect(warnings).toEqual([]);
  }, 10_000);

  it("a file out of order is sorted from that one read", async () => {
    const fifo = await fifoWith(
      "unordered.fifo",
      lines(200, (i) => 199 - i),
    );
    expect(await collect([fifo], 1 << 20)).toEqual(Array.from({ length: 200 }, (_, i) => `m${199 - i}`));
  }, 10_000);
});

describe("reading unsorted and several ATOF files in time order, in bounded memory", () => {
  it("an unsorted file sorted through more runs than are merged at once comes out as a stable sort would order it", async () => {
    const lines = [...shuffledMarks(4_000, "a", 7)];
    const path = join(work.dir, "shuffled.jsonl");
    await writeLines(path, lines);
    // ~200 bytes a line, 2 KB runs: ~400 runs, merged 64 at a time first.
    expect(await collect([path], 2_000)).toEqual(stableOrder([{ prefix: "a", lines }]));
    expect(await readdir(work.scratch)).toEqual([]);
  });

  it("several files merge by time; on equal times the earlier file, then the earlier line, comes first", async () => {
    const a = [...shuffledMarks(500, "a", 3)];
    const b = [
      scopeLine("start", "b0", null, BASE + 1),
      scopeLine("start", "b1", "b0", BASE + 5),
      scopeLine("end", "b1", "b0", BASE + 50),
      scopeLine("end", "b0", null, BASE + 96),
    ];
    const c = [...shuffledMarks(300, "c", 11)];
    const paths = ["a", "b", "c"].map((p) => join(work.dir, `merge-${p}.jsonl`));
    await writeLines(paths[0]!, a);
    await writeLines(paths[1]!, b);
    await writeLines(paths[2]!, c);
    const expected = stableOrder([
      { prefix: "a", lines: a },
      { prefix: "b", lines: b },
      { prefix: "c", lines: c },
    ]);
    expect(await collect(paths, 4_000)).toEqual(expected);
    expect(await collect(paths, 1 << 30)).toEqual(expected); // sorted in memory: the same order
  });

  it("spills runs to a private directory (mode 0700) under the temp directory and removes it when the reader stops early", async () => {
    const path = join(work.dir, "spilled.jsonl");
    await writeLines(path, shuffledMarks(1_000, "s", 5));
    const stream = eventsInTimeOrder([path], { runBytes: 4_000 });
    await stream.next();
    const [spill] = await readdir(work.scratch);
    expect(spill).toMatch(/^relaytrace-sort-/);
    expect((await stat(join(work.scratch, spill!))).mode & 0o777).toBe(0o700);
    expect((await readdir(join(work.scratch, spill!))).length).toBeGreaterThan(1);
    await stream.return(undefined); // a consumer that failed or stopped
    expect(await readdir(work.scratch)).toEqual([]);
  });

  it("removes its directory when the process is interrupted (SIGTERM) mid-sort", async () => {
    const path = join(work.dir, "interrupted.jsonl");
    await writeLines(path, shuffledMarks(1_000, "i", 9));
    const module = fileURLToPath(new URL("../../dist/src/cli/time-ordered-input.js", import.meta.url));
    const script = join(work.dir, "hold.mjs");
    const { writeFile } = await import("node:fs/promises");
    await writeFile(
      script,
      `const { eventsInTimeOrder } = await import(${JSON.stringify(module)});
       const stream = eventsInTimeOrder([process.argv[2]], { runBytes: 4000 });
       await stream.next();
       console.log("sorting");
       setInterval(() => {}, 1000);`,
    );
    const own = join(work.dir, "child-scratch");
    await mkdir(own);
    const saved = process.env["TMPDIR"];
    process.env["TMPDIR"] = own;
    const child = startNode(script, [path]);
    process.env["TMPDIR"] = saved;
    await new Promise<void>((resolve, reject) => {
      child.process.stdout!.on("data", () => child.stdout().includes("sorting") && resolve());
      void child.exited.then(() => reject(new Error(child.stderr())));
    });
    expect((await readdir(own)).length).toBe(1);
    child.process.kill("SIGTERM");
    expect((await child.exited).signal).toBe("SIGTERM");
    expect(await readdir(own)).toEqual([]);
  });
});
