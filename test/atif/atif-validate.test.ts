import { readdir, readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { AtifValidationError, assertValidAtif, validateAtif } from "../../exporters/atif/index.js";

const fixtures = new URL("../fixtures/nat-atof/", import.meta.url);

function minimal(): Record<string, unknown> {
  // atif.md §4.1, verbatim
  return JSON.parse(`{"schema_version":"ATIF-v1.7","session_id":"s-1","trajectory_id":"s-1",
 "agent":{"name":"demo","version":"0.1.0","model_name":"gpt-4.1"},
 "steps":[
  {"step_id":1,"timestamp":"2026-01-02T00:00:00.000000Z","source":"user","message":"3+4?"},
  {"step_id":2,"timestamp":"2026-01-02T00:00:01.000000Z","source":"agent","message":"",
   "model_name":"gpt-4.1","llm_call_count":1,
   "tool_calls":[{"tool_call_id":"call_abc","function_name":"add","arguments":{"a":3,"b":4}}],
   "observation":{"results":[{"source_call_id":"call_abc","content":"7"}]},
   "metrics":{"prompt_tokens":120,"completion_tokens":18}},
  {"step_id":3,"timestamp":"2026-01-02T00:00:02.000000Z","source":"agent","message":"7",
   "model_name":"gpt-4.1","llm_call_count":1,"metrics":{"prompt_tokens":150,"completion_tokens":2}}],
 "final_metrics":{"total_prompt_tokens":270,"total_completion_tokens":20,"total_steps":3}}`) as Record<string, unknown>;
}

describe("validateAtif", () => {
  it("accepts the minimal document of atif.md §4.1", () => {
    expect(validateAtif(minimal())).toEqual({ valid: true, errors: [] });
    expect(() => assertValidAtif(minimal())).not.toThrow();
  });

  it("lists every violation with its JSON Pointer path", () => {
    const doc = minimal() as { steps: Record<string, unknown>[]; [k: string]: unknown };
    doc["colour"] = "blue"; // unknown key on the root
    doc.steps[0]!["model_name"] = "gpt-4.1"; // agent-only key on a user step
    doc.steps[2]!["step_id"] = 4; // gap: 1, 2, 4
    (doc.steps[1]!["observation"] as { results: { source_call_id: string }[] }).results[0]!.source_call_id = "call_zzz";
    const { valid, errors } = validateAtif(doc);
    expect(valid).toBe(false);
    expect(errors).toEqual(
      expect.arrayContaining([
        { path: "/colour", message: 'unknown key "colour"' },
        { path: "/steps/0/model_name", message: expect.stringContaining("only allowed on agent steps") },
        { path: "/steps/2/step_id", message: expect.stringContaining("must be 3") },
        { path: "/steps/1/observation/results/0/source_call_id", message: expect.stringContaining("call_zzz") },
      ]),
    );
    expect(errors).toHaveLength(4);
  });

  it("throws AtifValidationError carrying the violations", () => {
    const doc = minimal();
    doc["steps"] = [];
    let caught: unknown;
    try {
      assertValidAtif(doc);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(AtifValidationError);
    expect((caught as AtifValidationError).errors.map((e) => e.path)).toContain("/steps");
  });

  it("rejects unknown keys in nested objects, bad content parts, bad timestamps and llm_call_count 0 with metrics", () => {
    const doc = minimal() as { steps: Record<string, unknown>[] };
    (doc.steps[1]!["tool_calls"] as Record<string, unknown>[])[0]!["args"] = {};
    doc.steps[0]!["message"] = [
      { type: "text", text: "hi", source: { media_type: "image/png", path: "a.png" } },
      { type: "image", source: { media_type: "image/bmp", path: "b.bmp" } },
    ];
    doc.steps[0]!["timestamp"] = "yesterday";
    doc.steps[2]!["llm_call_count"] = 0;
    const paths = validateAtif(doc).errors.map((e) => e.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        "/steps/1/tool_calls/0/args",
        "/steps/0/message/0",
        "/steps/0/message/1/source/media_type",
        "/steps/0/timestamp",
        "/steps/2/metrics",
      ]),
    );
  });

  it("applies the rules to embedded subagents: own numbering, required and unique trajectory ids", () => {
    const doc = minimal();
    const sub = {
      schema_version: "ATIF-v1.7",
      trajectory_id: "child",
      agent: { name: "c", version: "1" },
      steps: [{ step_id: 2, source: "user", message: "x" }],
    };
    doc["subagent_trajectories"] = [
      sub,
      { ...sub, steps: [{ step_id: 1, source: "user", message: "y" }] },
      { ...sub, trajectory_id: undefined },
    ];
    const errors = validateAtif(JSON.parse(JSON.stringify(doc))).errors;
    expect(errors.map((e) => e.path)).toEqual(
      expect.arrayContaining([
        "/subagent_trajectories/0/steps/0/step_id",
        "/subagent_trajectories/1/trajectory_id",
        "/subagent_trajectories/2",
      ]),
    );
  });

  it("accepts every ATIF file NAT produced", async () => {
    const names = (await readdir(fixtures)).filter((n) => n.endsWith("_atif.json"));
    expect(names.length).toBeGreaterThanOrEqual(3);
    for (const name of names) {
      const doc: unknown = JSON.parse(await readFile(new URL(name, fixtures), "utf8"));
      expect(validateAtif(doc), name).toEqual({ valid: true, errors: [] });
    }
  });
});
