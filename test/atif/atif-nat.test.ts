import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { atofToAtif, validateAtif, type AtifStep, type AtifTrajectory } from "../../exporters/atif/index.js";
import { parseTimestamp } from "../../src/events/timestamp.js";
import type { AtofEvent } from "../../src/events/types.js";

const fixtures = new URL("../fixtures/nat-atof/", import.meta.url);

async function load(name: string): Promise<{ events: AtofEvent[]; nat: AtifTrajectory }> {
  const lines = (await readFile(new URL(`${name}_atof.jsonl`, fixtures), "utf8")).split("\n").filter((l) => l.trim() !== "");
  const nat = JSON.parse(await readFile(new URL(`${name}_atif.json`, fixtures), "utf8")) as AtifTrajectory;
  return { events: lines.map((l) => JSON.parse(l) as AtofEvent), nat };
}

/** What must agree between two producers: who spoke, what was said, which calls, which results. */
function essentials(steps: AtifStep[]): unknown[] {
  return steps.map((s) => ({
    source: s.source,
    message: s.message,
    time: s.timestamp === undefined ? undefined : parseTimestamp(s.timestamp),
    calls: (s.tool_calls ?? []).map((c) => [c.tool_call_id, c.function_name, c.arguments]),
    results: (s.observation?.results ?? []).map((r) => [r.source_call_id, r.content]),
  }));
}

describe("NAT fixtures", () => {
  it("exmp02 (tool call round trip) matches NAT's own ATIF in its essentials", async () => {
    const { events, nat } = await load("exmp02");
    const [ours, ...rest] = atofToAtif(events, { agent: { name: "calculator_agent", version: "1.0.0" } });
    expect(rest).toEqual([]);
    expect(validateAtif(ours)).toEqual({ valid: true, errors: [] });
    expect(ours!.session_id).toBe(nat.session_id);
    expect(ours!.agent.model_name).toBe(nat.agent.model_name);
    expect(essentials(ours!.steps)).toEqual(essentials(nat.steps));
  });

  it("exmp03 matches NAT except the guardrail mark, which stays a mark instead of a system step", async () => {
    const { events, nat } = await load("exmp03");
    const [ours] = atofToAtif(events, { agent: { name: "chat_agent", version: "1.0.0" } });
    expect(validateAtif(ours)).toEqual({ valid: true, errors: [] });
    expect(nat.steps[0]!.source).toBe("system");
    expect(essentials(ours!.steps)).toEqual(essentials(nat.steps.slice(1)));
    expect((ours!.extra!["marks"] as { uuid: string }[]).map((m) => m.uuid)).toEqual(["guardrail-003"]);
    expect(ours!.steps.every((s) => s.source !== "system")).toBe(true);
  });

  it("exmp01 (no agent, no llm category) falls back to the root scope: its input and output as a user and an agent step", async () => {
    const { events, nat } = await load("exmp01");
    const out = atofToAtif(events, { agent: { name: "opaque_workflow", version: "1.0.0" } });
    expect(out).toHaveLength(1);
    const t = out[0]!;
    expect(validateAtif(t)).toEqual({ valid: true, errors: [] });
    expect(t.trajectory_id).toBe("root-001");
    expect(t.session_id).toBe(nat.session_id);
    const first = nat.steps[0]!;
    const last = nat.steps[nat.steps.length - 1]!;
    expect(t.steps.map((s) => [s.source, s.message])).toEqual([
      [first.source, first.message],
      [last.source, last.message],
    ]);
    expect(t.steps[1]!.llm_call_count).toBe(0);
  });
});
