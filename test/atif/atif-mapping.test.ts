import { describe, expect, it } from "vitest";
import { atofToAtif, validateAtif, type AtifTrajectory } from "../../exporters/atif/index.js";
import type { Json } from "../../src/events/json.js";
import type { AtofEvent } from "../../src/events/types.js";
import { AGENT, ROOT, TOOL, mark, scope, weatherRun } from "../support/atif-events.js";

const agent = { name: "weather", version: "1.0.0" };

function only(events: AtofEvent[], includeMarks = true): AtifTrajectory {
  const out = atofToAtif(events, { agent, includeMarks });
  expect(out).toHaveLength(1);
  expect(validateAtif(out[0])).toEqual({ valid: true, errors: [] });
  return out[0]!;
}

describe("atofToAtif — the annotated tool of atof.md §10", () => {
  it("gives exactly the observation of atif.md §4.2, with the pending marks in the step's extra.marks", () => {
    const t = only(weatherRun());
    expect(t.session_id).toBe("conv-42");
    expect(t.trajectory_id).toBe(AGENT);
    expect(t.steps.map((s) => s.source)).toEqual(["user", "agent"]);
    expect(t.steps[0]!.message).toBe("Weather in Oslo?");
    const step = t.steps[1]!;
    expect(step.model_name).toBe("gpt-4.1-2025-04-14");
    expect(step.message).toBe("");
    expect(step.tool_calls).toEqual([{ tool_call_id: "call_9f2", function_name: "get_weather", arguments: { city: "Oslo" } }]);
    expect(step.observation).toEqual({
      results: [
        {
          source_call_id: "call_9f2",
          extra: {
            event_uuid: "019ca945-0b9c-7128-a24b-e40ad23f0824",
            event_name: "get_weather",
            parent_event_uuid: "019ca945-0a01-7651-8317-1ff4a6a3a450",
            metadata: { "otel.status_code": "OK" },
            tool_result: { temp_c: 4 },
            tool_result_annotation: { cache: "hit", rank: 1 },
          },
        },
      ],
    });
    const marks = step.extra?.["marks"] as { name: string; parent_uuid: string }[];
    expect(marks.map((m) => m.name)).toEqual(["cache.lookup", "cache.store"]);
    expect(marks.every((m) => m.parent_uuid === TOOL)).toBe(true);
    expect(t.extra).toBeUndefined();
    expect(step.metrics).toEqual({ prompt_tokens: 120, completion_tokens: 18, cached_tokens: 100, extra: { total_tokens: 138 } });
    expect(t.final_metrics).toEqual({ total_prompt_tokens: 120, total_completion_tokens: 18, total_cached_tokens: 100, total_steps: 2 });
  });

  it("drops marks entirely with includeMarks: false", () => {
    const t = only(weatherRun(), false);
    expect(JSON.stringify(t)).not.toContain("cache.lookup");
    expect(t.steps).toHaveLength(2);
  });

  it("sorts by normalized timestamp, mixing integer microseconds and offsets", () => {
    const shifted = weatherRun()
      .reverse()
      .map((e) =>
        e.uuid === TOOL && e.kind === "scope" && e.scope_category === "start"
          ? { ...e, timestamp: Date.parse("2026-03-01T12:00:00.412Z") * 1000 }
          : e,
      );
    const t = only(shifted as AtofEvent[]);
    expect(t.steps.map((s) => s.source)).toEqual(["user", "agent"]);
    expect(t.steps[1]!.observation?.results[0]!.source_call_id).toBe("call_9f2");
  });
});

describe("atofToAtif — a model call traced on its own (no agent scope)", () => {
  const call = (request: Json, response: Json): AtofEvent[] => [
    scope("start", { uuid: "l1", parent: null, ts: "2026-01-01T00:00:01.000000Z", name: "openai.chat", category: "llm", data: request }),
    scope("end", { uuid: "l1", parent: null, ts: "2026-01-01T00:00:02.000000Z", name: "openai.chat", category: "llm", data: response }),
  ];
  const reply = { model: "gpt-4.1", choices: [{ message: { role: "assistant", content: "Hello." } }], usage: { prompt_tokens: 3 } };

  it("is read like any model call: the user's text, then the answer, not the bodies as JSON text", () => {
    const request = {
      headers: { "user-agent": "ai/6.0.0" },
      content: {
        model: "gpt-4.1",
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: "Hi there" },
        ],
      },
    };
    const t = only(call(request, reply));
    expect(t.steps.map((s) => [s.source, s.message])).toEqual([
      ["user", "Hi there"],
      ["agent", "Hello."],
    ]);
    expect(t.steps[1]!.llm_call_count).toBe(1);
    expect(t.steps[1]!.model_name).toBe("gpt-4.1");
  });

  it("keeps a request no codec reads as the user step", () => {
    const t = only(call({ headers: {}, content: { query: "Hi there", engine: "custom" } }, reply));
    expect(t.steps.map((s) => s.source)).toEqual(["user", "agent"]);
    expect(t.steps[0]!.message).toBe("Hi there");
  });
});

describe("atofToAtif — Anthropic bodies", () => {
  const A = "agent-a";
  const events = (): AtofEvent[] => [
    scope("start", { uuid: A, parent: ROOT, ts: "2026-01-01T00:00:00.000000Z", name: "calc-agent", category: "agent" }),
    scope("start", {
      uuid: "l1",
      parent: A,
      ts: "2026-01-01T00:00:01.000000Z",
      name: "anthropic.messages",
      category: "llm",
      data: {
        headers: { "anthropic-version": "2023-06-01" },
        content: {
          model: "claude-x",
          system: "s",
          max_tokens: 4096,
          messages: [{ role: "user", content: [{ type: "text", text: "1+1?" }] }],
        },
      },
    }),
    scope("end", {
      uuid: "l1",
      parent: A,
      ts: "2026-01-01T00:00:02.000000Z",
      name: "anthropic.messages",
      category: "llm",
      data: {
        model: "claude-x-1",
        role: "assistant",
        content: [
          { type: "thinking", thinking: "simple sum" },
          { type: "text", text: "Let me " },
          { type: "text", text: "add." },
          { type: "tool_use", id: "toolu_1", name: "add", input: { a: 1, b: 1 } },
        ],
        usage: {
          input_tokens: 10,
          cache_read_input_tokens: 200,
          cache_creation_input_tokens: 50,
          output_tokens: 7,
          service_tier: "standard",
        },
      },
    }),
    scope("start", {
      uuid: "t1",
      parent: A,
      ts: "2026-01-01T00:00:03.000000Z",
      name: "add",
      category: "tool",
      profile: { tool_call_id: "toolu_1" },
      data: { a: 1, b: 1 },
    }),
    scope("end", {
      uuid: "t1",
      parent: A,
      ts: "2026-01-01T00:00:04.000000Z",
      name: "add",
      category: "tool",
      profile: { tool_call_id: "toolu_1" },
      data: { output: "2", isError: false },
    }),
    scope("start", {
      uuid: "l2",
      parent: A,
      ts: "2026-01-01T00:00:05.000000Z",
      name: "anthropic.messages",
      category: "llm",
      data: {
        headers: {},
        content: {
          model: "claude-x",
          messages: [
            { role: "user", content: "1+1?" },
            { role: "assistant", content: [] },
            { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "2" }] },
          ],
        },
      },
    }),
    scope("end", {
      uuid: "l2",
      parent: A,
      ts: "2026-01-01T00:00:06.000000Z",
      name: "anthropic.messages",
      category: "llm",
      data: { model: "claude-x-1", content: [{ type: "text", text: "2" }], usage: { input_tokens: 30, output_tokens: 1 } },
    }),
    scope("end", { uuid: A, parent: ROOT, ts: "2026-01-01T00:00:07.000000Z", name: "calc-agent", category: "agent" }),
  ];

  it("counts cache tokens as prompt tokens, reads thinking, tool_use and ToolResult output, and sees tool_result turns as continuations", () => {
    const t = only(events());
    expect(t.steps.map((s) => s.source)).toEqual(["user", "agent", "agent"]);
    expect(t.steps[0]!.message).toEqual([{ type: "text", text: "1+1?" }]);
    const first = t.steps[1]!;
    expect(first.message).toBe("Let me add.");
    expect(first.reasoning_content).toBe("simple sum");
    expect(first.metrics).toEqual({ prompt_tokens: 260, completion_tokens: 7, cached_tokens: 250, extra: { service_tier: "standard" } });
    expect(first.tool_calls).toEqual([{ tool_call_id: "toolu_1", function_name: "add", arguments: { a: 1, b: 1 } }]);
    expect(first.observation?.results[0]).toMatchObject({
      source_call_id: "toolu_1",
      content: "2",
      extra: { tool_result: { output: "2", isError: false } },
    });
    expect(t.steps[2]!.metrics).toEqual({ prompt_tokens: 30, completion_tokens: 1 });
    expect(t.final_metrics).toEqual({ total_prompt_tokens: 290, total_completion_tokens: 8, total_cached_tokens: 250, total_steps: 3 });
  });
});

describe("atofToAtif — observations", () => {
  const base = (extra: AtofEvent[]): AtofEvent[] => [
    scope("start", { uuid: "A", parent: null, ts: "2026-01-01T00:00:00Z", name: "agent", category: "agent" }),
    ...extra,
    scope("end", { uuid: "A", parent: null, ts: "2026-01-01T00:01:00Z", name: "agent", category: "agent" }),
  ];
  const llm = (
    uuid: string,
    s: number,
    calls: { id: string; name: string }[],
    messages: unknown[] = [{ role: "user", content: "go" }],
  ): AtofEvent[] => [
    scope("start", {
      uuid,
      parent: "A",
      ts: `2026-01-01T00:00:${String(s).padStart(2, "0")}Z`,
      name: "openai.chat_completions",
      category: "llm",
      data: { headers: {}, content: { messages } } as never,
    }),
    scope("end", {
      uuid,
      parent: "A",
      ts: `2026-01-01T00:00:${String(s + 1).padStart(2, "0")}Z`,
      name: "openai.chat_completions",
      category: "llm",
      data: {
        choices: [
          {
            message: {
              content: "",
              tool_calls: calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: "not json" }, index: 0 })),
            },
          },
        ],
      },
    }),
  ];

  it("defers a result until a later step lists its call, and puts leftovers in one system step without source_call_id", () => {
    const t = only(
      base([
        scope("start", {
          uuid: "t0",
          parent: "A",
          ts: "2026-01-01T00:00:01Z",
          name: "lookup",
          category: "tool",
          profile: { tool_call_id: "c_later" },
        }),
        scope("end", {
          uuid: "t0",
          parent: "A",
          ts: "2026-01-01T00:00:02Z",
          name: "lookup",
          category: "tool",
          profile: { tool_call_id: "c_later" },
          data: "found",
        }),
        scope("start", {
          uuid: "t9",
          parent: "A",
          ts: "2026-01-01T00:00:03Z",
          name: "orphan",
          category: "tool",
          profile: { tool_call_id: "c_never" },
        }),
        scope("end", {
          uuid: "t9",
          parent: "A",
          ts: "2026-01-01T00:00:04Z",
          name: "orphan",
          category: "tool",
          profile: { tool_call_id: "c_never" },
          data: "lost",
        }),
        ...llm("L", 10, [{ id: "c_later", name: "lookup" }]),
      ]),
    );
    expect(t.steps.map((s) => s.source)).toEqual(["user", "agent", "system"]);
    expect(t.steps[1]!.tool_calls![0]).toEqual({
      tool_call_id: "c_later",
      function_name: "lookup",
      arguments: { raw: "not json" },
      extra: { index: 0 },
    });
    expect(t.steps[1]!.observation?.results.map((r) => [r.source_call_id, r.content])).toEqual([["c_later", "found"]]);
    expect(t.steps[2]!.observation?.results).toHaveLength(1);
    expect(t.steps[2]!.observation?.results[0]).not.toHaveProperty("source_call_id");
    expect(t.steps[2]!.observation?.results[0]!.content).toBe("lost");
  });

  it("adds no result for an error end without data, and records tools the provider did not list", () => {
    const t = only(
      base([
        ...llm("L", 10, [{ id: "c1", name: "fail" }]),
        scope("start", {
          uuid: "t1",
          parent: "A",
          ts: "2026-01-01T00:00:12Z",
          name: "fail",
          category: "tool",
          profile: { tool_call_id: "c1" },
        }),
        scope("end", {
          uuid: "t1",
          parent: "A",
          ts: "2026-01-01T00:00:13Z",
          name: "fail",
          category: "tool",
          profile: { tool_call_id: "c1" },
          metadata: { "otel.status_code": "ERROR" },
        }),
        scope("start", { uuid: "t2", parent: "A", ts: "2026-01-01T00:00:14Z", name: "extra_tool", category: "tool", data: { q: 1 } }),
        scope("end", { uuid: "t2", parent: "A", ts: "2026-01-01T00:00:15Z", name: "extra_tool", category: "tool", data: "ok" }),
      ]),
    );
    const step = t.steps[1]!;
    expect(step.tool_calls!.map((c) => c.tool_call_id)).toEqual(["c1", "t2"]);
    expect(step.tool_calls![1]).toMatchObject({ function_name: "extra_tool", arguments: { q: 1 }, extra: { event_uuid: "t2" } });
    expect(step.observation?.results).toEqual([expect.objectContaining({ source_call_id: "t2", content: "ok" })]);
  });
});

describe("atofToAtif — durable halt, resume and subagents", () => {
  const request = { id: "req-1", kind: "approval", prompt: "Approve the transfer?" };
  const halted = (withToolEnd: boolean): AtofEvent[] => [
    scope("start", {
      uuid: "H",
      parent: ROOT,
      ts: "2026-01-01T00:00:00Z",
      name: "bank",
      category: "agent",
      metadata: { session_id: "sess-9" },
    }),
    scope("start", {
      uuid: "L1",
      parent: "H",
      ts: "2026-01-01T00:00:01Z",
      name: "openai.chat_completions",
      category: "llm",
      data: { headers: {}, content: { messages: [{ role: "user", content: "pay bob" }] } },
    }),
    scope("end", {
      uuid: "L1",
      parent: "H",
      ts: "2026-01-01T00:00:02Z",
      name: "openai.chat_completions",
      category: "llm",
      data: {
        choices: [
          {
            message: {
              content: null,
              tool_calls: [{ id: "call_p", type: "function", function: { name: "transfer", arguments: '{"to":"bob"}' } }],
            },
          },
        ],
      },
    }),
    scope("start", {
      uuid: "T1",
      parent: "H",
      ts: "2026-01-01T00:00:03Z",
      name: "transfer",
      category: "tool",
      profile: { tool_call_id: "call_p" },
      data: { to: "bob" },
    }),
    ...(withToolEnd
      ? [
          scope("end", {
            uuid: "T1",
            parent: "H",
            ts: "2026-01-01T00:00:04Z",
            name: "transfer",
            category: "tool",
            profile: { tool_call_id: "call_p", tool_result_annotation: { pending: request } },
            data: { output: request.prompt, isError: true, metadata: { pending: request } },
            metadata: { "otel.status_code": "OK" },
          }),
          mark({
            uuid: "M1",
            parent: "T1",
            ts: "2026-01-01T00:00:04.000001Z",
            name: "tool.pending",
            category: "tool",
            profile: { tool_call_id: "call_p" },
            data: request,
          }),
        ]
      : []),
    scope("end", {
      uuid: "H",
      parent: ROOT,
      ts: "2026-01-01T00:00:05Z",
      name: "bank",
      category: "agent",
      data: { status: "pending", pending: request },
    }),
  ];

  it("a halted run validates: the pending call has its tool_calls entry and an annotated observation; the mark stays out of the steps", () => {
    const t = only(halted(true));
    expect(t.session_id).toBe("sess-9");
    expect(t.steps.map((s) => s.source)).toEqual(["user", "agent"]);
    const step = t.steps[1]!;
    expect(step.tool_calls!.map((c) => c.tool_call_id)).toEqual(["call_p"]);
    expect(step.observation!.results[0]).toMatchObject({
      source_call_id: "call_p",
      content: "Approve the transfer?",
      extra: { tool_result_annotation: { pending: request } },
    });
    expect((step.extra!["marks"] as { name: string }[]).map((m) => m.name)).toEqual(["tool.pending"]);
  });

  it("a call still running at export has no result and is valid", () => {
    const t = only(halted(false));
    expect(t.steps[1]!.tool_calls).toHaveLength(1);
    expect(t.steps[1]!.observation).toBeUndefined();
  });

  it("a resumed run (parent agent already ended) is its own trajectory that refers back to the halted one", () => {
    const resumed: AtofEvent[] = [
      scope("start", {
        uuid: "R",
        parent: "H",
        ts: "2026-01-01T00:10:00Z",
        name: "bank",
        category: "agent",
        data: { resume: "req-1" },
        metadata: { session_id: "sess-9", "relaytrace.resume_of": "req-1" },
      }),
      scope("start", {
        uuid: "L2",
        parent: "R",
        ts: "2026-01-01T00:10:01Z",
        name: "openai.chat_completions",
        category: "llm",
        data: {
          headers: {},
          content: {
            messages: [
              { role: "user", content: "pay bob" },
              { role: "tool", tool_call_id: "call_p", content: "approved" },
            ],
          },
        },
      }),
      scope("end", {
        uuid: "L2",
        parent: "R",
        ts: "2026-01-01T00:10:02Z",
        name: "openai.chat_completions",
        category: "llm",
        data: { choices: [{ message: { content: "Done." } }] },
      }),
      scope("end", { uuid: "R", parent: "H", ts: "2026-01-01T00:10:03Z", name: "bank", category: "agent" }),
    ];
    const out = atofToAtif([...halted(true), ...resumed], { agent });
    expect(out.map((t) => t.trajectory_id)).toEqual(["H", "R"]);
    expect(out[0]!.subagent_trajectories).toBeUndefined();
    expect(out[1]!.extra).toEqual({ resume_of: { request_id: "req-1", trajectory_id: "H" } });
    expect(out[1]!.steps.map((s) => [s.source, s.message])).toEqual([["agent", "Done."]]);
    // fed alone (as the exporter sees it after the halted run was written), it still refers back
    expect(atofToAtif(resumed, { agent })[0]!.extra).toEqual({ resume_of: { request_id: "req-1", trajectory_id: "H" } });
    for (const t of out) expect(validateAtif(t).valid).toBe(true);
  });

  it("a nested agent scope becomes an embedded subagent referenced from the calling step", () => {
    const events: AtofEvent[] = [
      scope("start", { uuid: "P", parent: null, ts: "2026-01-01T00:00:00Z", name: "planner", category: "agent" }),
      scope("start", {
        uuid: "PL",
        parent: "P",
        ts: "2026-01-01T00:00:01Z",
        name: "openai.chat_completions",
        category: "llm",
        data: { messages: [{ role: "user", content: "research X" }] },
      }),
      scope("end", {
        uuid: "PL",
        parent: "P",
        ts: "2026-01-01T00:00:02Z",
        name: "openai.chat_completions",
        category: "llm",
        data: { choices: [{ message: { content: "", tool_calls: [{ id: "c_sub", function: { name: "researcher", arguments: "{}" } }] } }] },
      }),
      scope("start", {
        uuid: "PT",
        parent: "P",
        ts: "2026-01-01T00:00:03Z",
        name: "researcher",
        category: "tool",
        profile: { tool_call_id: "c_sub" },
      }),
      scope("start", { uuid: "C", parent: "PT", ts: "2026-01-01T00:00:04Z", name: "researcher-agent", category: "agent" }),
      scope("start", {
        uuid: "CL",
        parent: "C",
        ts: "2026-01-01T00:00:05Z",
        name: "openai.chat_completions",
        category: "llm",
        data: { messages: [{ role: "user", content: "X?" }] },
      }),
      scope("end", {
        uuid: "CL",
        parent: "C",
        ts: "2026-01-01T00:00:06Z",
        name: "openai.chat_completions",
        category: "llm",
        data: { choices: [{ message: { content: "X is Y" } }] },
      }),
      scope("end", { uuid: "C", parent: "PT", ts: "2026-01-01T00:00:07Z", name: "researcher-agent", category: "agent" }),
      scope("end", {
        uuid: "PT",
        parent: "P",
        ts: "2026-01-01T00:00:08Z",
        name: "researcher",
        category: "tool",
        profile: { tool_call_id: "c_sub" },
        data: "X is Y",
      }),
      scope("end", { uuid: "P", parent: null, ts: "2026-01-01T00:00:09Z", name: "planner", category: "agent" }),
    ];
    const t = only(events);
    expect(t.steps.map((s) => s.step_id)).toEqual([1, 2]);
    expect(t.subagent_trajectories!.map((s) => [s.trajectory_id, s.session_id, s.agent.name])).toEqual([["C", "P", "researcher-agent"]]);
    expect(t.subagent_trajectories![0]!.steps.map((s) => [s.step_id, s.source, s.message])).toEqual([
      [1, "user", "X?"],
      [2, "agent", "X is Y"],
    ]);
    const results = t.steps[1]!.observation!.results;
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({
      source_call_id: "c_sub",
      content: "X is Y",
      subagent_trajectory_ref: [{ trajectory_id: "C", session_id: "P", extra: { name: "researcher-agent", scope_uuid: "C" } }],
    });
  });
});

describe("atofToAtif — replies without call ids", () => {
  it("a Gemini call takes the id its tool's producer gave it, so the result sits on the call (one call, not two)", () => {
    const llm = "019ca945-0a50-7000-8000-0000000000g1";
    const base = { parent: AGENT, name: "gemini-2.0-flash", category: "llm", profile: { model_name: "gemini-2.0-flash" } };
    const tool = { uuid: TOOL, parent: AGENT, name: "get_time", category: "tool", profile: { tool_call_id: "get_time__1" } };
    const events: AtofEvent[] = [
      scope("start", {
        uuid: AGENT,
        parent: ROOT,
        ts: "2026-01-05T00:00:00Z",
        name: "assistant",
        category: "agent",
        data: { input: "time?" },
      }),
      scope("start", {
        ...base,
        uuid: llm,
        ts: "2026-01-05T00:00:01Z",
        data: { contents: [{ role: "user", parts: [{ text: "time?" }] }] },
      }),
      scope("end", {
        ...base,
        uuid: llm,
        ts: "2026-01-05T00:00:02Z",
        data: {
          candidates: [
            {
              content: { role: "model", parts: [{ functionCall: { name: "get_time", args: { tz: "Asia/Tokyo" } } }] },
              finishReason: "STOP",
            },
          ],
        },
      }),
      scope("start", { ...tool, ts: "2026-01-05T00:00:03Z", data: { tz: "Asia/Tokyo" } }),
      scope("end", { ...tool, ts: "2026-01-05T00:00:04Z", data: { result: "15:30" } }),
    ];
    const [t] = atofToAtif(events);
    const step = t!.steps.find((s) => s.tool_calls !== undefined)!;
    expect(step.tool_calls!.map((c) => [c.tool_call_id, c.function_name, c.arguments])).toEqual([
      ["get_time__1", "get_time", { tz: "Asia/Tokyo" }],
    ]);
    expect(step.observation!.results.map((r) => [r.source_call_id, r.content])).toEqual([["get_time__1", "15:30"]]);
    expect(validateAtif(t!)).toEqual({ valid: true, errors: [] });
  });
});
