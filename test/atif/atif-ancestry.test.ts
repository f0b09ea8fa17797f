import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { atofToAtif, type AtifTrajectory } from "../../exporters/atif/index.js";
import type { AtofEvent } from "../../src/events/types.js";
import { createRuntime } from "../../src/runtime/runtime.js";
import { createClient, createToolkit, defineTool, pending, relayAnswer, relayTool } from "../../src/agent/index.js";
import { reply, startProvider } from "../support/agent-provider-server.js";
import { lineageProblems } from "../support/atif-lineage.js";
import { AGENT, LLM1, scope, TOOL, weatherRun } from "../support/atif-events.js";
import { runHaltedAndResumed, runWithSubagent } from "../support/loop-trajectories.js";
import { natPythonInterpreter } from "../support/nat-trajectory.js";
import { useScratchTmpdir } from "../support/scratch-tmpdir.js";

const fixtures = new URL("../fixtures/nat-atof/", import.meta.url);

async function natFixture(name: string): Promise<AtifTrajectory[]> {
  const text = await readFile(new URL(`${name}_atof.jsonl`, fixtures), "utf8");
  return atofToAtif(
    text
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => JSON.parse(l) as AtofEvent),
  );
}

/**
 * Three calls of one turn run in parallel: an approval and a relay call suspend, an addition
 * finishes; the run halts, a resume answers the approval and halts again on the relay call, a
 * second resume answers it. Three top-level trajectories.
 */
async function parallelHaltAndResumes(): Promise<AtofEvent[]> {
  const srv = await startProvider([
    reply("openai", "", [
      { id: "c1", name: "approve", arguments: "{}" },
      { id: "c2", name: "add", arguments: '{"a":1,"b":2}' },
      { id: "c3", name: "lookup", arguments: "{}" },
    ]),
    reply("openai", "fin"),
  ]);
  try {
    const runtime = createRuntime();
    const events: AtofEvent[] = [];
    runtime.subscribe("capture", (e) => void events.push(e));
    const approve = defineTool({
      name: "approve",
      description: "",
      execute: (_a, ctx) => (ctx.answer ? "approved" : pending({ kind: "approval", prompt: "ok?" })),
    });
    const add = defineTool({ name: "add", description: "", execute: (a: Record<string, unknown>) => String(Number(a.a) + Number(a.b)) });
    const toolkit = await createToolkit({ tools: [approve, add, relayTool("lookup", "l")] });
    const client = createClient({ baseUrl: srv.url, style: "openai", model: "m", apiKey: "k", runtime });
    const first = await client.run("go", { toolkit });
    const answer = { id: first.pending!.id, ok: true };
    const second = await client.runWithAnswer({ toolkit, history: first.messages, pending: first.pending!, answer, halt: first.halt! });
    const relayed = relayAnswer(second.pending!.id, [{ id: "c3", output: "x" }]);
    await client.runWithAnswer({ toolkit, history: second.messages, pending: second.pending!, answer: relayed, halt: second.halt! });
    await runtime.flush();
    return events;
  } finally {
    await srv.close();
  }
}

/** Every trajectory of the loop's own scenarios and of NAT's ATOF examples, by name. */
async function allTrajectories(): Promise<Map<string, AtifTrajectory>> {
  const out = new Map<string, AtifTrajectory>();
  const add = (name: string, ts: AtifTrajectory[]): void => ts.forEach((t, i) => out.set(`${name}-${i}`, t));
  for (const run of [runWithSubagent, runHaltedAndResumed]) {
    const recorded = await run();
    await recorded.close();
    add(run.name, atofToAtif(recorded.events));
  }
  add("parallel", atofToAtif(await parallelHaltAndResumes()));
  add("weather", atofToAtif(weatherRun()));
  for (const name of ["exmp01", "exmp02", "exmp03"]) add(name, await natFixture(name));
  return out;
}

/** The weather run with its LLM call moved inside a plain `plan` scope, which is no node of the trajectory. */
function weatherWithPlanScope(): AtofEvent[] {
  const PLAN = "019ca945-0a02-7000-8000-00000000000a";
  const events = weatherRun().map((e) => (e.uuid === LLM1 ? { ...e, parent_uuid: PLAN } : e));
  const plan = { uuid: PLAN, parent: AGENT, name: "plan", category: "function", data: null };
  return [
    events[0]!,
    scope("start", { ...plan, ts: "2026-03-01T12:00:00.050000Z" }),
    ...events.slice(1),
    scope("end", { ...plan, ts: "2026-03-01T12:00:00.990000Z" }),
  ];
}

describe("ATIF ancestry", () => {
  it("every step and tool call of the loop's runs and NAT's examples has a node whose parent is in the lineage", async () => {
    const all = await allTrajectories();
    expect(all.size).toBeGreaterThanOrEqual(10);
    for (const [name, t] of all) expect(lineageProblems(t), name).toEqual([]);
  });

  it("LLM steps and tools hang under the agent; the user step is the agent itself", () => {
    const [t] = atofToAtif(weatherWithPlanScope());
    const agentNode = { function_id: AGENT, function_name: "weather-agent" };
    expect(t!.steps[0]!.extra!["ancestry"]).toEqual(agentNode);
    expect(t!.steps[1]!.extra!["ancestry"]).toEqual({
      function_id: LLM1,
      function_name: "openai.chat_completions",
      parent_id: AGENT,
      parent_name: "weather-agent",
    });
    expect(t!.steps[1]!.extra!["tool_ancestry"]).toEqual([
      { function_id: TOOL, function_name: "get_weather", parent_id: AGENT, parent_name: "weather-agent" },
    ]);
    expect(lineageProblems(t!)).toEqual([]);
  });

  it("the resumed run's restated step carries the agent's ancestry", async () => {
    const recorded = await runHaltedAndResumed();
    await recorded.close();
    const [, resumed] = atofToAtif(recorded.events);
    const restated = resumed!.steps[0]!;
    expect(restated.is_copied_context).toBe(true);
    expect(restated.extra!["ancestry"]).toMatchObject({ function_id: resumed!.trajectory_id, function_name: "deployer" });
    expect(restated.extra!["tool_ancestry"]).toMatchObject([{ function_name: "approve", parent_id: resumed!.trajectory_id }]);
  });

  it("the rule itself reports a parent outside the lineage and a step without ancestry", () => {
    const [t] = atofToAtif(weatherRun());
    const broken = structuredClone(t!);
    (broken.steps[1]!.extra!["ancestry"] as Record<string, unknown>)["parent_id"] = "elsewhere";
    delete broken.steps[0]!.extra;
    expect(lineageProblems(broken)).toEqual([
      `${AGENT}: step 1: no extra.ancestry`,
      `${AGENT}: step 2: parent_id elsewhere of ${LLM1} is not in the lineage`,
      // without the user step's node the agent is in no lineage, so the tool's parent dangles too
      `${AGENT}: step 2: parent_id ${AGENT} of ${TOOL} is not in the lineage`,
    ]);
  });
});

/**
 * NAT's own lineage validator (`print_atif_function_tree.py --validate`, a script of NAT's
 * evaluation package that its wheels do not ship): runs when RELAYTRACE_NAT_ATIF_TREE names it
 * and RELAYTRACE_NAT_PYTHON (or python3) can import NAT's ATIF models.
 */
const natTree = process.env["RELAYTRACE_NAT_ATIF_TREE"];
const canValidate = natTree !== undefined && existsSync(natTree) && natPythonInterpreter() !== null;

describe("NAT's lineage validator", () => {
  const tmp = useScratchTmpdir("atif-ancestry-");
  it.skipIf(!canValidate)("reports no issue on any trajectory relaytrace writes for these runs", async () => {
    const outputs: string[] = [];
    for (const [name, t] of await allTrajectories()) {
      const file = join(tmp.dir, `${name}.json`);
      await writeFile(file, JSON.stringify(t));
      const run = spawnSync(natPythonInterpreter()!, [natTree!, "--validate", file], { encoding: "utf8", timeout: 60_000 });
      outputs.push(`${name}: exit ${run.status}\n${run.stdout}${run.stderr}`);
      expect(run.stdout, name).not.toContain("FAILED");
      expect(run.status, outputs.join("\n")).toBe(0);
    }
  });
});
