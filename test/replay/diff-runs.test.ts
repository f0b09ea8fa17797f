import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { diffRuns } from "relaytrace";
import type { AtofEvent } from "../../src/events/types.js";
import { formatTimestamp, parseTimestamp } from "../../src/events/timestamp.js";
import { main } from "../../src/cli/main.js";
import { runDemo } from "../../src/cli/demo-scenario.js";
import { parseAtof } from "../../src/events/atof-reader.js";
import { startNode } from "../support/child-process.js";
import { capturedIo } from "../support/cli-io.js";
import { recordRun, WEATHER_TURNS } from "../support/recorded-run.js";
import { useScratchTmpdir } from "../support/scratch-tmpdir.js";
import type { ScriptedTurn } from "../../exporters/testing/scripted-provider.js";

// Two recorded runs compared step by step, as a CI gate on a prompt change would: by diffRuns
// and by `relaytrace diff` (whose --json is the same object).

const scratch = useScratchTmpdir("relaytrace-diff-");

const weather = (city: string, id = "call_1") => ({ id, name: "get_weather", arguments: { city } });

function turns(
  first: ScriptedTurn["toolCalls"],
  answer = "Oslo: 4 °C.",
  usage = { promptTokens: 70, completionTokens: 5 },
): ScriptedTurn[] {
  return [
    { toolCalls: first!, usage: { promptTokens: 50, completionTokens: 9 } },
    { text: answer, usage },
  ];
}

async function file(name: string, events: readonly AtofEvent[]): Promise<string> {
  const path = join(scratch.dir, name);
  await writeFile(path, events.map((e) => JSON.stringify(e)).join("\n") + "\n");
  return path;
}

async function cliDiff(a: readonly AtofEvent[], b: readonly AtofEvent[], json: boolean) {
  const io = capturedIo();
  const code = await main(["diff", await file("a.jsonl", a), await file("b.jsonl", b), ...(json ? ["--json"] : [])], io);
  return { code, io };
}

/** The same events a second later and ten times slower: only times differ. */
function slower(events: readonly AtofEvent[]): AtofEvent[] {
  const t0 = parseTimestamp(events[0]!.timestamp);
  return events.map((e) => ({ ...e, timestamp: formatTimestamp(t0 + 1_000_000 + (parseTimestamp(e.timestamp) - t0) * 10) }) as AtofEvent);
}

describe("diffRuns and relaytrace diff", () => {
  it("find two recordings of the same run equal, whatever their ids, timestamps and latencies", async () => {
    const a = await recordRun("openai");
    const b = await recordRun("openai");
    expect(a.events[0]!.uuid).not.toBe(b.events[0]!.uuid);
    expect(diffRuns(a.events, slower(b.events))).toEqual({ equal: true, changes: [] });
    const { code, io } = await cliDiff(a.events, slower(b.events), false);
    expect(code).toBe(0);
    expect(io.stdout.at(-1)).toMatch(/^equivalent: model calls 2 → 2, tokens 134 → 134 \(\+0\), latency ms/);
  });

  it("find two runs of the demo equal, its suspended relay call's new pending ids aside, whatever the dialect", async () => {
    const a = await runDemo({ outDir: join(scratch.dir, "demo-a"), projection: "full" });
    const b = await runDemo({ outDir: join(scratch.dir, "demo-b"), projection: "full", style: "anthropic" });
    const events = async (path: string) => parseAtof(await readFile(path, "utf8")).events;
    expect(diffRuns(await events(a.atofPath), await events(b.atofPath))).toEqual({ equal: true, changes: [] });
  });

  it("report one extra tool call as one tool_call_added, with the tool and its arguments", async () => {
    const a = await recordRun("openai", "Weather?", turns([weather("Oslo")]));
    const b = await recordRun("openai", "Weather?", turns([weather("Oslo"), weather("Bergen", "call_2")]));
    const diff = diffRuns(a.events, b.events);
    expect(diff.changes).toEqual([
      { kind: "tool_call_added", step: 1, tool: "get_weather", a: null, b: { args: { city: "Bergen" }, result: expect.anything() } },
    ]);
    expect(diff.equal).toBe(false);
  });

  it("report changed arguments, changed results, changed output and token changes with both values", async () => {
    const a = await recordRun("openai", "Weather?", turns([weather("Oslo")]));
    const b = await recordRun(
      "openai",
      "Weather?",
      turns([weather("Bergen")], "Bergen: 9 °C.", { promptTokens: 71, completionTokens: 5 }),
      {
        temp: 9,
      },
    );
    const kinds = diffRuns(a.events, b.events).changes;
    expect(kinds).toContainEqual({ kind: "tool_args_changed", step: 1, tool: "get_weather", a: { city: "Oslo" }, b: { city: "Bergen" } });
    expect(kinds).toContainEqual({
      kind: "tool_result_changed",
      step: 1,
      tool: "get_weather",
      a: { output: '{"city":"Oslo","temp_c":4}', isError: false },
      b: { output: '{"city":"Bergen","temp_c":9}', isError: false },
    });
    expect(kinds).toContainEqual({ kind: "output_changed", step: 2, a: "Oslo: 4 °C.", b: "Bergen: 9 °C." });
    expect(kinds).toContainEqual(
      expect.objectContaining({
        kind: "usage_changed",
        step: 2,
        a: expect.objectContaining({ inputTokens: 70 }),
        b: expect.objectContaining({ inputTokens: 71 }),
      }),
    );
    expect(kinds).toHaveLength(4);
  });

  it("report a run whose last model call failed as status_changed", async () => {
    const a = await recordRun("openai");
    const b = await recordRun("openai", undefined, [WEATHER_TURNS[0]!, { status: 500, body: { error: { message: "down" } } }], {
      retries: 0,
    });
    const changes = diffRuns(a.events, b.events).changes;
    expect(changes).toContainEqual({ kind: "status_changed", step: 2, a: "OK", b: "ERROR" });
  });

  it("print with --json exactly what diffRuns returns, exit 1 when different and 2 on unreadable input", async () => {
    const a = await recordRun("openai", "Weather?", turns([weather("Oslo")]));
    const b = await recordRun("openai", "Weather?", turns([weather("Oslo"), weather("Bergen", "call_2")], "Both: 4 °C."));
    const { code, io } = await cliDiff(a.events, b.events, true);
    expect(code).toBe(1);
    expect(JSON.parse(io.stdout.join("\n"))).toEqual(JSON.parse(JSON.stringify(diffRuns(a.events, b.events))));
    const human = await cliDiff(a.events, b.events, false);
    expect(human.code).toBe(1);
    expect(human.io.stdout).toContain('step 1: + tool call get_weather {"city":"Bergen"}');

    const io2 = capturedIo();
    expect(await main(["diff", join(scratch.dir, "missing.jsonl"), await file("a.jsonl", a.events)], io2)).toBe(2);
    expect(io2.stderr.join("\n")).toContain("missing.jsonl");
  });
});

/** A run by hand: one model call per text, each answering that text (ids and times made up). */
function runOf(texts: readonly string[]): AtofEvent[] {
  const at = (us: number) => formatTimestamp(Date.UTC(2026, 0, 1) * 1000 + us);
  const schema = { data_schema: { name: "openai/chat-completions", version: "1" }, category_profile: null, metadata: null };
  return texts.flatMap((text, i) => {
    const base = { atof_version: "0.1", uuid: `u-${text}-${i}`, parent_uuid: null, name: "openai.chat_completions", attributes: [] };
    const reply = { choices: [{ message: { role: "assistant", content: text } }], usage: { prompt_tokens: 5, completion_tokens: 5 } };
    return [
      {
        kind: "scope",
        scope_category: "start",
        ...base,
        category: "llm",
        timestamp: at(i * 10),
        ...schema,
        data: { content: { messages: [] } },
      },
      {
        kind: "scope",
        scope_category: "end",
        ...base,
        category: "llm",
        timestamp: at(i * 10 + 5),
        ...schema,
        metadata: { "otel.status_code": "OK" },
        data: reply,
      },
    ] as AtofEvent[];
  });
}

describe("diff lines steps up", () => {
  it("reports a model call only one run made as one change, the calls after it compared with their own", async () => {
    const a = await recordRun("openai", "Weather?", turns([weather("Oslo")]));
    const extra: ScriptedTurn = { toolCalls: [weather("Bergen", "call_2")], usage: { promptTokens: 60, completionTokens: 9 } };
    const b = await recordRun("openai", "Weather?", [turns([weather("Oslo")])[0]!, extra, turns([])[1]!]);
    const added = diffRuns(a.events, b.events);
    expect(added.changes).toEqual([
      {
        kind: "status_changed",
        step: 2,
        a: null,
        b: "OK",
        call: {
          output: "",
          usage: { inputTokens: 60, outputTokens: 9, totalTokens: 69 },
          tools: [{ tool: "get_weather", args: { city: "Bergen" }, result: { output: '{"city":"Bergen","temp_c":4}', isError: false } }],
        },
      },
    ]);
    const removed = diffRuns(b.events, a.events).changes;
    expect(removed).toEqual([expect.objectContaining({ kind: "status_changed", step: 2, a: "OK", b: null })]);
    const { code, io } = await cliDiff(a.events, b.events, false);
    expect(code).toBe(1);
    expect(io.stdout[0]).toBe('step 2: + model call (OK) output "", tools ["get_weather"]');
    expect(io.stdout.at(-1)).toMatch(/^1 changes: model calls 2 → 3/);
  });

  it("finds one insertion, one removal and one changed output among 300 steps, and --json says the same", async () => {
    const texts = Array.from({ length: 300 }, (_, i) => `answer ${i}`);
    const changed = [...texts];
    changed.splice(50, 0, "inserted");
    changed.splice(121, 1); // "answer 120"
    changed[150] = "answer 150, reworded";
    const diff = diffRuns(runOf(texts), runOf(changed));
    expect(diff.changes.map((c) => [c.kind, c.step, c.a, c.b])).toEqual([
      ["status_changed", 51, null, "OK"],
      ["status_changed", 121, "OK", null],
      ["output_changed", 151, "answer 150", "answer 150, reworded"],
    ]);
    const { code, io } = await cliDiff(runOf(texts), runOf(changed), true);
    expect(code).toBe(1);
    expect(JSON.parse(io.stdout.join("\n"))).toEqual(JSON.parse(JSON.stringify(diff)));
  });

  it("pairs changed steps in order when nothing lines up, and leaves the rest to the longer run", () => {
    const diff = diffRuns(runOf(["a", "b", "c"]), runOf(["x", "y", "z", "w"]));
    expect(diff.changes.map((c) => [c.kind, c.step, c.a, c.b])).toEqual([
      ["output_changed", 1, "a", "x"],
      ["output_changed", 2, "b", "y"],
      ["output_changed", 3, "c", "z"],
      ["status_changed", 4, null, "OK"],
    ]);
  });
});

describe("relaytrace diff on hostile recordings", () => {
  const CLI = fileURLToPath(new URL("../../dist/src/cli/main.js", import.meta.url));

  /** A run by hand: one model call, then a tool whose name carries escapes and whose arguments nest `depth` levels. */
  function hostileRun(leaf: string, depth: number): string {
    // Written as text: JSON.stringify itself cannot follow this deep.
    const args = '{"a":'.repeat(depth) + JSON.stringify({ leaf }) + "}".repeat(depth);
    const at = (us: number) => `2026-01-01T00:00:00.${String(us).padStart(6, "0")}Z`;
    const base = { atof_version: "0.1", parent_uuid: null, attributes: [], category_profile: null, data_schema: null, metadata: null };
    const llm = { ...base, uuid: "u-llm", name: "openai.chat_completions", category: "llm" };
    const tool = { ...base, uuid: "u-tool", name: "evil\u001b[2J\u202etool", category: "tool" };
    const lines = [
      { kind: "scope", scope_category: "start", ...llm, timestamp: at(1), data: { content: { model: "m", messages: [] } } },
      {
        kind: "scope",
        scope_category: "end",
        ...llm,
        timestamp: at(2),
        data: { choices: [{ message: { role: "assistant", content: "ok" } }] },
      },
      { kind: "scope", scope_category: "start", ...tool, timestamp: at(3), data: "ARGS" },
      { kind: "scope", scope_category: "end", ...tool, timestamp: at(4), data: "done" },
    ];
    return lines.map((l) => JSON.stringify(l).replace('"ARGS"', args)).join("\n") + "\n";
  }

  it("escapes control characters in names and handles arguments nested 20,000 levels deep", async () => {
    const a = join(scratch.dir, "hostile-a.jsonl");
    const b = join(scratch.dir, "hostile-b.jsonl");
    await writeFile(a, hostileRun("x", 20_000));
    await writeFile(b, hostileRun("y", 20_000) + '{"kind":"scope","scope_cat');
    const human = startNode(CLI, ["diff", a, b]);
    expect((await human.exited).code).toBe(1);
    expect(human.stdout()).toContain("step 1: tool evil\\x1b[2J\\u202etool arguments");
    expect(human.stdout()).not.toContain("\u001b");
    expect(human.stdout()).not.toContain("\u202e");
    expect(human.stderr()).toMatch(/hostile-b\.jsonl:5: the last line .* is not complete JSON: skipped/);
    const json = startNode(CLI, ["diff", a, b, "--json"]);
    expect((await json.exited).code).toBe(1);
    const parsed = JSON.parse(json.stdout()) as { equal: boolean; changes: { kind: string; tool: string }[] };
    expect(parsed.changes.map((c) => [c.kind, c.tool])).toEqual([["tool_args_changed", "evil\u001b[2J\u202etool"]]);
    expect(json.stdout()).not.toContain("\u001b");
    expect(json.stdout()).not.toContain("\u202e");
  });
});
