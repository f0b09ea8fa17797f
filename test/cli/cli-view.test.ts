import { appendFile, mkdtemp, readFile, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { formatProgress } from "../../src/cli/progress.js";
import type { ViewDoc } from "../../src/cli/viewer/model.js";
import { capturedIo } from "../support/cli-io.js";

const NAT = fileURLToPath(new URL("../fixtures/nat-atof/", import.meta.url));
let work: string;
let atof: string;
let atif: string;
let demoStdout: string[];

function embedded(html: string): ViewDoc {
  return JSON.parse(/<script type="application\/json" id="relaytrace-data">([\s\S]*?)<\/script>/.exec(html)![1]!) as ViewDoc;
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "relaytrace-view-"));
  const io = capturedIo();
  expect(await main(["demo", "--out", join(work, "demo")], io)).toBe(0);
  demoStdout = io.stdout;
  const files = io.stdout.join("\n");
  atof = /ATOF {2}(\S+)/.exec(files)![1]!;
  atif = /ATIF {2}(\S+)/.exec(files)![1]!;
});

describe("relaytrace view", () => {
  it("writes one self-contained HTML file from the demo's ATOF and ATIF and sums them up", async () => {
    const out = join(work, "demo.html");
    const io = capturedIo();
    expect(await main(["view", atof, atif, "-o", out, "--title", "Oslo run"], io)).toBe(0);
    expect(io.stderr).toEqual([
      expect.stringMatching(
        /^wrote .*demo\.html \(\d+ KB: 6 spans, 0 errors, 1 traces, 508 tokens, wall time (?:[\d.]+(?:µs|ms|s)|\d+m \d\ds), 1 trajectories, 3 steps\)$/,
      ),
    ]);
    const html = await readFile(out, "utf8");
    expect(html).not.toMatch(/<script[^>]+src=|<link|https?:\/\/(?!www\.w3\.org)/);
    const doc = embedded(html);
    expect(doc.title).toBe("Oslo run");
    expect(doc.spans.map((s) => s.name)).toEqual([
      "weather-agent",
      "openai.chat_completions",
      "get_weather",
      "notify_customer",
      "notify_customer",
      "openai.chat_completions",
    ]);
    expect(doc.trajectories[0]!.steps).toHaveLength(3);
  });

  it("merges several files and formats: another producer's ATOF and ATIF, and OTLP/JSON", async () => {
    const otlp = join(work, "demo.otlp.json");
    expect(await main(["convert", atof, "--to", "otlp-json", "-o", otlp], capturedIo())).toBe(0);
    const out = join(work, "mixed.html");
    expect(await main(["view", otlp, join(NAT, "exmp02_atof.jsonl"), join(NAT, "exmp02_atif.json"), "-o", out], capturedIo())).toBe(0);
    const doc = embedded(await readFile(out, "utf8"));
    expect(doc.traces).toHaveLength(2);
    expect(doc.spans.filter((s) => s.name === "notify_customer")).toHaveLength(2);
    expect(doc.spans.some((s) => s.name === "calculator__add")).toBe(true);
    expect(doc.trajectories.map((t) => t.agent.name)).toEqual(["calculator_agent"]);
  });

  it("skips a torn last line with a warning the page shows too; a bad line in the middle stops it unless --lenient", async () => {
    const torn = join(work, "torn.jsonl");
    await writeFile(torn, await readFile(atof, "utf8"));
    await appendFile(torn, '{"kind":"mark","name":"cut');
    const io = capturedIo();
    expect(await main(["view", torn, "-o", join(work, "torn.html")], io)).toBe(0);
    expect(io.stderr[0]).toMatch(
      /^relaytrace: warning: .*torn\.jsonl:17: the last line \(26 bytes\) ends without a line end and is not complete JSON: skipped$/,
    );
    expect(embedded(await readFile(join(work, "torn.html"), "utf8")).notes[0]).toMatch(/torn\.jsonl:17: the last line/);
    const bad = join(work, "bad-middle.jsonl");
    const lines = (await readFile(atof, "utf8")).split("\n");
    lines.splice(3, 0, '{"kind":"mark","name":"cut');
    await writeFile(bad, lines.join("\n"));
    const strict = capturedIo();
    expect(await main(["view", bad, "-o", join(work, "bad.html")], strict)).toBe(2);
    expect(strict.stderr).toEqual([expect.stringMatching(/^relaytrace: .*bad-middle\.jsonl: ATOF line 4: not valid JSON/)]);
    const lenient = capturedIo();
    expect(await main(["view", bad, "--lenient", "-o", join(work, "bad.html")], lenient)).toBe(0);
    expect(lenient.stderr[0]).toMatch(/^relaytrace: warning: .*bad-middle\.jsonl:4: skipped: not valid JSON/);
  });

  it("reports progress as a share of the bytes read: a bar on a terminal, a plain line otherwise", async () => {
    expect(
      formatProgress({ label: "reading big.jsonl", done: 25 * 1024 * 1024, total: 100 * 1024 * 1024, elapsedMs: 3000, bar: false }),
    ).toBe("reading big.jsonl  25% (25.0 MB of 100.0 MB), about 9s left");
    expect(formatProgress({ label: "reading x", done: 50, total: 100, elapsedMs: 1000, bar: true })).toBe(
      "[############............] reading x  50% (50 B of 100 B), about 1s left",
    );
    const io = capturedIo();
    expect(await main(["view", atof, "-o", join(work, "p.html")], io)).toBe(0);
    expect(io.progressLines.at(-1)).toMatch(/reading .*\.jsonl 100% \([\d.]+ KB of [\d.]+ KB\)$/);
  });

  it("gives one clear line for a missing file, an output over an input, and a file that is not a trace", async () => {
    const cases: [string[], RegExp][] = [
      [["view", join(work, "nope.jsonl")], /^relaytrace: .*nope\.jsonl: no such file$/],
      [["view", atof, "-o", atof], /^relaytrace: -o .* would overwrite an input file$/],
      [["view"], /^relaytrace: view needs a FILE/],
    ];
    const other = join(work, "other.json");
    await writeFile(other, JSON.stringify({ schema_version: "x", hello: 1 }));
    cases.push([
      ["view", other, "-o", join(work, "o.html")],
      /^relaytrace: .*other\.json: not an ATIF trajectory, ATOF event log or OTLP\/JSON request/,
    ]);
    for (const [args, message] of cases) {
      const io = capturedIo();
      expect({ args, code: await main(args, io) }).toEqual({ args, code: 2 });
      expect(io.stderr.join("\n")).toMatch(message);
    }
  });
});

describe("the rest of the command line", () => {
  it("the demo ends by pointing at the viewer page it wrote", async () => {
    expect(demoStdout.at(-1)).toMatch(/^See the trace: open .*trace\.html in a browser/);
    expect((await stat(join(work, "demo", "trace.html"))).size).toBeGreaterThan(10_000);
  });

  it("--version prints the package's version and the version of the price table it prices calls with", async () => {
    const io = capturedIo();
    expect(await main(["--version"], io)).toBe(0);
    const pkg = JSON.parse(await readFile(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
    const table = JSON.parse(
      await readFile(new URL("../../node_modules/@pydantic/genai-prices/package.json", import.meta.url), "utf8"),
    ) as {
      version: string;
    };
    expect(io.stdout).toEqual([`relaytrace ${pkg.version}`, `prices: @pydantic/genai-prices ${table.version}`]);
  });

  it("convert given an ATIF file says what it is instead of a JSON parse error", async () => {
    const io = capturedIo();
    expect(await main(["convert", atif, "--to", "tree"], io)).toBe(2);
    expect(io.stderr).toEqual([
      `relaytrace: ${atif} is an ATIF trajectory, not an ATOF event log: convert reads ATOF (see it with 'relaytrace view ${atif}')`,
    ]);
  });

  it("convert --to otlp-json takes --service-name", async () => {
    const out = join(work, "svc.otlp.json");
    expect(await main(["convert", atof, "--to", "otlp-json", "--service-name", "weather-svc", "-o", out], capturedIo())).toBe(0);
    const body = JSON.parse(await readFile(out, "utf8")) as {
      resourceSpans: { resource: { attributes: { key: string; value: { stringValue?: string } }[] } }[];
    };
    expect(body.resourceSpans[0]!.resource.attributes.find((a) => a.key === "service.name")?.value.stringValue).toBe("weather-svc");
  });
});
