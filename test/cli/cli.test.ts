import { execFile } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdir, mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validateAtif } from "../../exporters/atif/validate.js";
import { main } from "../../src/cli/main.js";
import type { Io } from "../../src/cli/io.js";
import { decodeOtlp } from "../support/otlp.js";

const CLI = fileURLToPath(new URL("../../dist/src/cli/main.js", import.meta.url));
const FIXTURES = fileURLToPath(new URL("../fixtures/nat-atof/", import.meta.url));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(args: string[], cwd: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { cwd, env: { ...process.env, OPENAI_API_KEY: "", ANTHROPIC_API_KEY: "" } },
      (error, stdout, stderr) => {
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

let work: string;
let demoRun: Run;
let demoDir: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "relaytrace-cli-"));
  demoRun = await cli(["demo", "--out", "out"], work);
  demoDir = join(work, "out");
});

afterAll(async () => undefined);

async function demoFiles(): Promise<{ atof: string; atif: string }> {
  const names = await readdir(demoDir);
  return {
    atof: join(
      demoDir,
      names.find((n) => n.endsWith(".jsonl"))!,
    ),
    atif: join(
      demoDir,
      names.find((n) => n.endsWith(".json"))!,
    ),
  };
}

describe("relaytrace demo", () => {
  it("runs on the embedded model, writes ATOF and a valid ATIF file, and prints the span tree", async () => {
    expect(demoRun.stderr).toBe("");
    expect(demoRun.code).toBe(0);
    expect(demoRun.stdout).toContain("no API key, no network");
    expect(demoRun.stdout).toContain("Run: done in 2 turns, 2 tool calls");
    expect(demoRun.stdout).toMatch(/weather-agent \(INTERNAL, OK\) \d+\.\d{3}ms/);
    expect(demoRun.stdout).toMatch(/get_weather \(CLIENT, OK\)/);
    expect(demoRun.stdout).toContain("mark:cache.lookup");
    const { atof, atif } = await demoFiles();
    expect(demoRun.stdout).toContain(join("out", atof.split("/").pop()!));
    const doc = JSON.parse(await readFile(atif, "utf8")) as unknown;
    expect(validateAtif(doc)).toEqual({ valid: true, errors: [] });
    const lines = (await readFile(atof, "utf8")).trim().split("\n");
    expect(lines.length).toBeGreaterThan(10);
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
  });

  it("keeps the redacted email out of every file while the app still got its answer", async () => {
    expect(demoRun.stdout).toContain("ada@example.com"); // the app's own answer is untouched
    const { atof, atif } = await demoFiles();
    for (const file of [atof, atif]) {
      const text = await readFile(file, "utf8");
      expect(text).not.toContain("ada@example.com");
      expect(text).toContain("[REDACTED:email]");
    }
  });

  it("--otlp sends the run's spans to a collector on 127.0.0.1", async () => {
    const bodies: {
      path: string;
      body: {
        resourceSpans: {
          scopeSpans: { spans: { traceId: string; parentSpanId?: string; name: string; attributes: { key: string }[] }[] }[];
        }[];
      };
    }[] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        bodies.push({
          path: req.url ?? "",
          body: decodeOtlp(
            "traces",
            String(req.headers["content-type"]),
            Buffer.concat(chunks),
          ) as unknown as (typeof bodies)[number]["body"],
        });
        res.writeHead(200, { "content-type": "application/json" });
        res.end("{}");
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`;
    try {
      const run = await cli(["demo", "--out", "otlp-out", "--otlp", url, "--projection", "openinference"], work);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(`spans sent to ${url}`);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
    const spans = bodies.flatMap((b) => b.body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)));
    expect(bodies.every((b) => b.path === "/v1/traces")).toBe(true);
    const names = spans.map((s) => s.name);
    expect(names).toEqual(
      expect.arrayContaining(["weather-agent", "openai.chat_completions", "get_weather", "notify_customer", "mark:cache.lookup"]),
    );
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
    const root = spans.find((s) => s.name === "weather-agent")!;
    expect(root.parentSpanId ?? "").toBe("");
    const tool = spans.find((s) => s.name === "get_weather")!;
    expect(tool.attributes.map((a) => a.key)).toContain("nemo_relay.tool.result.annotation");
  });

  it("reports a collector that is down as a diagnostic, the run still completes, and the exit code says the export failed", async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, "127.0.0.1", r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const run = await cli(["demo", "--out", "down-out", "--otlp", `http://127.0.0.1:${port}/v1/traces`], work);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("Run: done");
    expect(run.stdout).toContain("otel.export_failed");
  });

  it("--projection gen_ai prints standard span names", async () => {
    const run = await cli(["demo", "--out", "genai-out", "--projection", "gen_ai"], work);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("invoke_agent weather-agent");
    expect(run.stdout).toContain("execute_tool get_weather");
    expect(run.stdout).toContain("chat demo-model");
  });
});

describe("relaytrace convert / validate / tree", () => {
  it("converts our ATOF and NAT's to ATIF, OTLP JSON and a tree", async () => {
    const { atof } = await demoFiles();
    const toAtif = await cli(["convert", atof, "--to", "atif", "-o", "conv.json"], work);
    expect(toAtif.code).toBe(0);
    expect(validateAtif(JSON.parse(await readFile(join(work, "conv.json"), "utf8"))).valid).toBe(true);

    const otlp = await cli(["convert", atof, "--to", "otlp-json"], work);
    expect(otlp.code).toBe(0);
    const request = JSON.parse(otlp.stdout) as { resourceSpans: { scopeSpans: { spans: { name: string }[] }[] }[] };
    expect(request.resourceSpans[0]!.scopeSpans[0]!.spans.map((s) => s.name)).toContain("weather-agent");

    const nat = await cli(["convert", join(FIXTURES, "exmp02_atof.jsonl"), "--to", "tree"], work);
    expect(nat.code).toBe(0);
    expect(nat.stdout).toContain("calculator_agent (INTERNAL, UNSET)");
    expect(nat.stdout).toContain("calculator__add (CLIENT, UNSET)");

    const natAtif = await cli(["convert", join(FIXTURES, "exmp02_atof.jsonl"), "--to", "atif"], work);
    expect(validateAtif(JSON.parse(natAtif.stdout)).valid).toBe(true);
  });

  it("validates: 0 for valid files, 1 with every problem's path or line number", async () => {
    const { atof, atif } = await demoFiles();
    expect((await cli(["validate", atif], work)).stdout).toMatch(/valid ATIF \(ATIF-v1.7, 3 steps\)/);
    expect((await cli(["validate", atof], work)).stdout).toMatch(/valid ATOF \(\d+ events\)/);
    for (const fixture of ["exmp01_atif.json", "exmp02_atif.json", "exmp03_atif.json", "exmp01_atof.jsonl"]) {
      expect((await cli(["validate", join(FIXTURES, fixture)], work)).code).toBe(0);
    }

    const doc = JSON.parse(await readFile(atif, "utf8")) as { steps: Record<string, unknown>[]; bogus?: number };
    doc.bogus = 1;
    doc.steps[0]!.step_id = 7;
    doc.steps[0]!.model_name = "only-agents-have-this";
    await writeFile(join(work, "bad.json"), JSON.stringify(doc));
    const bad = await cli(["validate", "bad.json"], work);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain("bad.json: /bogus");
    expect(bad.stdout).toContain("/steps/0/step_id");
    expect(bad.stdout).toContain("/steps/0/model_name");
    expect(bad.stderr).toMatch(/invalid ATIF \(\d+ problems\)/);

    const lines = (await readFile(atof, "utf8")).trim().split("\n");
    lines.splice(2, 0, "{not json");
    lines.push('{"kind":"scope","atof_version":"9.0"}');
    await writeFile(join(work, "bad.jsonl"), lines.join("\n"));
    const badAtof = await cli(["validate", "bad.jsonl"], work);
    expect(badAtof.code).toBe(1);
    expect(badAtof.stdout).toContain("bad.jsonl:3:");
    expect(badAtof.stdout).toContain(`bad.jsonl:${lines.length}:`);
  }, 60_000); // nine CLI processes one after another: past the default timeout on a loaded machine

  it("validate: a custom scope or mark without a string category_profile.subtype is a problem (a warning with --lenient)", async () => {
    const { atof } = await demoFiles();
    const lines = (await readFile(atof, "utf8")).trim().split("\n");
    const custom = lines.findIndex((l) => (JSON.parse(l) as { category?: string }).category === "custom");
    expect(custom).toBeGreaterThanOrEqual(0);
    const mark = JSON.parse(lines[custom]!) as Record<string, unknown>;
    lines[custom] = JSON.stringify({ ...mark, category_profile: null });
    await writeFile(join(work, "no-subtype.jsonl"), lines.join("\n") + "\n");
    const strict = await cli(["validate", "no-subtype.jsonl"], work);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toBe(
      `no-subtype.jsonl:${custom + 1}: category "custom" without a string category_profile.subtype (ATOF requires one)\n`,
    );
    expect(strict.stderr).toMatch(/invalid ATOF \(1 problem in \d+ lines\)/);
    const lenient = await cli(["validate", "no-subtype.jsonl", "--lenient"], work);
    expect(lenient.code).toBe(0);
    expect(lenient.stderr).toContain(
      `relaytrace: warning: no-subtype.jsonl:${custom + 1}: category "custom" without a string category_profile.subtype`,
    );
    expect(lenient.stdout).toMatch(/valid ATOF \(\d+ events\)/);
  });

  it("prints trees of ATOF and ATIF files", async () => {
    const { atof, atif } = await demoFiles();
    const spanTree = await cli(["tree", atof], work);
    expect(spanTree.code).toBe(0);
    expect(spanTree.stdout).toMatch(/^weather-agent \(INTERNAL, OK\)/);
    const stepTree = await cli(["tree", atif], work);
    expect(stepTree.stdout).toContain("#1 user: What is the weather in Oslo?");
    expect(stepTree.stdout).toContain("call get_weather");
  });
});

describe("relaytrace errors and help", () => {
  it.each([
    [["validate", "missing.json"], /^relaytrace: missing\.json: no such file\n$/],
    [["tree"], /^relaytrace: tree needs a FILE/],
    [["convert", "x.jsonl"], /^relaytrace: convert needs --to atif\|otlp-json\|tree\n$/],
    [["convert", "x.jsonl", "--to", "yaml"], /^relaytrace: --to must be one of atif, otlp-json, tree \(got "yaml"\)\n$/],
    [["demo", "--projection", "zipkin"], /^relaytrace: --projection must be one of full, openinference, gen_ai/],
    [["demo", "--otlp"], /^relaytrace: --otlp needs a value\n$/],
    [["demo", "--colour"], /^relaytrace: unknown option --colour for 'relaytrace demo'; known options: --out, --otlp, /],
    [
      ["tree", "x.jsonl", "--projecton", "full"],
      /^relaytrace: unknown option --projecton for 'relaytrace tree'; did you mean --projection\?\n$/,
    ],
    [["view", "x.jsonl", "--titel=T"], /^relaytrace: unknown option --titel for 'relaytrace view'; did you mean --title\?\n$/],
    [["demp"], /^relaytrace: unknown command "demp"; did you mean demo\?\n$/],
    [["demo", "--live"], /^relaytrace: --live needs OPENAI_API_KEY or ANTHROPIC_API_KEY/],
    [
      ["frobnicate"],
      /^relaytrace: unknown command "frobnicate"; commands: demo, convert, validate, tree, view, send, replay, diff, serve\n$/,
    ],
  ])("%j fails with one clear line and exit 2", async (args, message) => {
    const run = await cli(args, work);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toContain("    at ");
    expect(run.stdout).toBe("");
  });

  it("an output it cannot write and an empty file get one clear line too", async () => {
    const { atof } = await demoFiles();
    const noDir = await cli(["convert", atof, "--to", "atif", "-o", "missing-dir/out.json"], work);
    expect(noDir.code).toBe(2);
    expect(noDir.stderr).toBe("relaytrace: cannot write missing-dir/out.json: its directory does not exist\n");
    await writeFile(join(work, "a-file"), "x");
    const badOut = await cli(["demo", "--out", "a-file/out"], work);
    expect(badOut.code).toBe(2);
    expect(badOut.stderr).toMatch(
      /^relaytrace: cannot use .*a-file\/out for the output files: a part of the path is a file, not a directory\n$/,
    );
    await writeFile(join(work, "empty.jsonl"), "");
    const empty = await cli(["validate", "empty.jsonl"], work);
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain("empty.jsonl: no events (an empty ATOF file)");
  });

  it("reads a directory with nothing to read, or garbage, without a stack trace", async () => {
    await mkdir(join(work, "nothing"), { recursive: true });
    const dir = await cli(["tree", "nothing"], work);
    expect(dir.code).toBe(2);
    expect(dir.stderr).toMatch(/^relaytrace: nothing: a directory with no \*\.jsonl files to read/);
    await writeFile(join(work, "garbage.json"), "{ nope");
    const garbage = await cli(["tree", "garbage.json"], work);
    expect(garbage.code).toBe(2);
    expect(garbage.stderr).toMatch(/garbage\.json: not valid JSON/);
    expect(garbage.stderr).not.toContain("    at ");
  });

  it.each(["demo", "convert", "validate", "tree", "replay", "diff", "serve"])("%s --help explains the command", async (command) => {
    const run = await cli([command, "--help"], work);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Usage: relaytrace ${command}`);
  });

  it("shows a progress line while converting a long file", async () => {
    const { atof } = await demoFiles();
    const lines = (await readFile(atof, "utf8")).trim().split("\n");
    const many: string[] = [];
    for (let i = 0; many.length < 6000; i++)
      many.push(
        ...lines.map((l) =>
          l
            .replaceAll(/"uuid":"([0-9a-f-]+)"/g, (_m, u: string) => `"uuid":"${u}-${i}"`)
            .replaceAll(/"parent_uuid":"([0-9a-f-]+)"/g, (_m, u: string) => `"parent_uuid":"${u}-${i}"`),
        ),
      );
    await writeFile(join(work, "long.jsonl"), many.join("\n"));
    const progress: string[] = [];
    const io: Io = { out: () => undefined, err: () => undefined, progress: (l) => progress.push(l) };
    expect(await main(["convert", join(work, "long.jsonl"), "--to", "otlp-json", "-o", join(work, "long.otlp.json")], io)).toBe(0);
    expect(progress).toContain(`reading ${join(work, "long.jsonl")}: 5,000 lines`);
  });
});
