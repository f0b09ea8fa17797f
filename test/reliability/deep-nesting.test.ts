import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AtifExporter } from "../../exporters/atif/exporter.js";
import { jsonText } from "../../src/events/json-text.js";
import type { Json } from "../../src/events/json.js";
import type { AtifTrajectory } from "../../exporters/atif/types.js";
import { validateAtif } from "../../exporters/atif/validate.js";
import { main } from "../../src/cli/main.js";
import { captureIo } from "../support/cli-io.js";
import { readAtofFile } from "../../src/events/atof-reader.js";
import { nestedScopes, writeLines } from "../support/atof-files.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "relaytrace-deep-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The chain of nested subagents, walked without recursion. */
function chain(doc: AtifTrajectory): AtifTrajectory[] {
  const out: AtifTrajectory[] = [];
  for (let d: AtifTrajectory | undefined = doc; d; d = d.subagent_trajectories?.[0]) out.push(d);
  return out;
}

const agentScope = (i: number) => ({ name: `agent-${i}`, category: "agent", data: { prompt: `task ${i}` } });

describe("input nested thousands deep never overflows the stack", () => {
  it("`relaytrace tree` on 20,000 nested scopes prints every span, indentation capped, each deeper line tagged", async () => {
    const path = join(dir, "deep.jsonl");
    await writeLines(path, nestedScopes(20_000));
    const io = captureIo();
    expect(await main(["tree", path], io)).toBe(0);
    const lines = io.stdout.join("\n").split("\n");
    expect(lines).toHaveLength(20_000);
    expect(lines[0]).toMatch(/^s0 \(INTERNAL, UNSET\)/);
    expect(lines.at(-1)).toMatch(/\[depth 19999\] s19999 \(INTERNAL, UNSET\)/);
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThan(400);
  });

  it("`convert --to atif` on 3,000 nested agent scopes writes one valid trajectory 3,000 subagents deep", async () => {
    const path = join(dir, "agents.jsonl");
    await writeLines(path, nestedScopes(3_000, agentScope));
    const out = join(dir, "agents.json");
    const io = captureIo();
    expect(await main(["convert", path, "--to", "atif", "-o", out], io)).toBe(0);
    const doc = JSON.parse(await readFile(out, "utf8")) as AtifTrajectory;
    const levels = chain(doc);
    expect(levels).toHaveLength(3_000);
    expect(levels.at(-1)!.steps[0]!.message).toBe("task 2999");
    expect(validateAtif(doc)).toEqual({ valid: true, errors: [] });
    // and the validator finds a problem at the bottom, with its full path
    levels.at(-1)!.steps[0]!.step_id = 7;
    const { errors } = validateAtif(doc);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.path).toBe(`${"/subagent_trajectories/0".repeat(2_999)}/steps/0/step_id`);
    const broken = join(dir, "broken.json");
    await writeFile(broken, jsonText(doc as unknown as Json));
    const check = captureIo();
    expect(await main(["validate", broken], check)).toBe(1);
    expect(check.stdout).toEqual([`${broken}: ${errors[0]!.path}: step_id must be 1 (steps are numbered 1..N), got 7`]);
    const tree = captureIo();
    expect(await main(["tree", out], tree)).toBe(0);
    expect(tree.stdout.join("\n")).toContain("[depth 2999] agent-2999");
  });

  it("the ATIF exporter writes and returns a 3,000-deep trajectory (no JSON.stringify recursion)", async () => {
    const { events } = await readAtofFile(join(dir, "agents.jsonl"));
    const exporter = new AtifExporter({ agent: { name: "deep", version: "1" }, outputDirectory: join(dir, "atif-out") });
    for (const event of events) exporter.onEvent(event);
    await exporter.shutdown();
    expect(exporter.diagnostics()).toEqual([]);
    const [file] = exporter.files();
    expect(chain(JSON.parse(await readFile(file!, "utf8")) as AtifTrajectory)).toHaveLength(3_000);
    expect(chain(exporter.toJSON()[0]!)).toHaveLength(3_000);
  });

  it("a payload nested 50,000 deep in a foreign file reaches the OTLP output whole, as JSON text", async () => {
    const path = join(dir, "deep-payload.jsonl");
    const deep = `${"[".repeat(50_000)}${"]".repeat(50_000)}`;
    const line = (phase: "start" | "end", us: number) =>
      `{"kind":"scope","scope_category":"${phase}","atof_version":"0.1","uuid":"p","parent_uuid":null,"timestamp":${us},"name":"deep","attributes":[],"category":"tool","category_profile":null,"data":{"nested":${deep}},"data_schema":null,"metadata":null}`;
    await writeFile(path, `${line("start", 1_772_366_400_000_000)}\n${line("end", 1_772_366_400_000_001)}\n`);
    const out = join(dir, "deep-payload.otlp.json");
    expect(await main(["convert", path, "--to", "otlp-json", "-o", out], captureIo())).toBe(0);
    const text = await readFile(out, "utf8");
    expect(text).toContain(JSON.stringify(deep).slice(0, -1)); // the attribute value holds the whole array text
  });
});
