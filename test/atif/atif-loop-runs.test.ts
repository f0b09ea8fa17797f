import { describe, expect, it } from "vitest";
import { atofToAtif, type AtifStep } from "../../exporters/atif/index.js";
import { parseTimestamp } from "../../src/events/timestamp.js";
import { natPythonInterpreter, natTrajectoryProblems } from "../support/nat-trajectory.js";
import { runHaltedAndResumed, runWithSubagent } from "../support/loop-trajectories.js";

const resultsOf = (step: AtifStep) => step.observation?.results ?? [];

describe("ATIF of the agent loop's runs", () => {
  it("atofToAtif works without options: agent name from the agent scope, version from its metadata or 0.0.0", async () => {
    const runs = await runWithSubagent();
    try {
      const [doc, ...rest] = atofToAtif(runs.events);
      expect(rest).toEqual([]);
      expect(doc!.agent).toEqual({ name: "planner", version: "0.0.0", model_name: "stub" });
      expect(doc!.subagent_trajectories![0]!.agent.name).toBe("researcher");
      expect(natTrajectoryProblems([doc])).toEqual([]);
      const named = atofToAtif(runs.events, { agent: { name: "given", version: "2.0.0" } })[0]!;
      expect(named.agent).toMatchObject({ name: "given", version: "2.0.0" });
    } finally {
      await runs.close();
    }
  });

  it("a subagent run inside a tool is referenced from that tool call's observation result, not a system step", async () => {
    const runs = await runWithSubagent();
    try {
      const [doc] = atofToAtif(runs.events);
      expect(doc!.steps.map((s) => s.source)).toEqual(["user", "agent", "agent"]);
      const issuing = doc!.steps[1]!;
      expect(issuing.tool_calls!.map((c) => c.tool_call_id)).toEqual(["call_sub"]);
      const [result, ...others] = resultsOf(issuing);
      expect(others).toEqual([]);
      const child = doc!.subagent_trajectories![0]!;
      expect(result).toMatchObject({ source_call_id: "call_sub", content: "inner finding" });
      expect(result!.subagent_trajectory_ref).toEqual([
        { trajectory_id: child.trajectory_id, session_id: doc!.session_id, extra: { name: "researcher", scope_uuid: child.trajectory_id } },
      ]);
      expect(child.steps.map((s) => s.message)).toEqual(["inner", "inner finding"]);
      expect(natTrajectoryProblems([doc])).toEqual([]);
    } finally {
      await runs.close();
    }
  });

  it("after a durable resume, the answered call's result sits on a step that issued it, in time order", async () => {
    const runs = await runHaltedAndResumed();
    try {
      const [halted, resumed, ...rest] = atofToAtif(runs.events);
      expect(rest).toEqual([]);
      // the halted run: the call and its suspension placeholder
      expect(resultsOf(halted!.steps[1]!)).toMatchObject([{ source_call_id: "call_ok", content: "deploy?" }]);
      // the resumed run restates the halted turn's call (copied context, no LLM call) and carries its real result
      const [restated, final] = resumed!.steps;
      expect(restated).toMatchObject({
        source: "agent",
        is_copied_context: true,
        llm_call_count: 0,
        tool_calls: [{ tool_call_id: "call_ok", function_name: "approve", arguments: { what: "deploy" } }],
      });
      expect(resultsOf(restated!)).toMatchObject([{ source_call_id: "call_ok", content: "approved" }]);
      expect(final).toMatchObject({ source: "agent", message: "deployed" });
      expect(resumed!.steps.every((s) => s.source !== "system")).toBe(true);
      const times = resumed!.steps.map((s) => parseTimestamp(s.timestamp!));
      expect(times).toEqual([...times].sort((a, b) => a - b));
      expect(resumed!.extra!["resume_of"]).toMatchObject({ trajectory_id: halted!.trajectory_id });
      expect(natTrajectoryProblems([halted, resumed])).toEqual([]);
    } finally {
      await runs.close();
    }
  });
});

describe("the NAT check itself", () => {
  it.skipIf(natPythonInterpreter() === null)("runs NAT's own pydantic models, which reject what NAT rejects", () => {
    const bad = {
      schema_version: "ATIF-v1.7",
      agent: { name: "a", version: "1" },
      steps: [{ step_id: 1, source: "user", message: "", tool_calls: [] }],
    };
    const problems = natTrajectoryProblems([bad]);
    // one from the transcribed rules, one from NAT's models
    expect(problems.some((p) => /tool_calls/.test(p) && !/validation error/.test(p))).toBe(true);
    expect(problems.some((p) => /validation error for Trajectory/.test(p))).toBe(true);
  });
});
