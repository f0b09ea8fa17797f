import { afterEach, describe, expect, it } from "vitest";
import { createRuntime } from "../../src/runtime/runtime.js";
import { createClient, createToolkit, defineTool } from "../../src/agent/index.js";
import { MetricsRecorder } from "../../src/agent/metrics.js";
import { reply, startProvider } from "../support/agent-provider-server.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

const buckets = ["0.05", "0.1", "0.25", "0.5", "1", "2.5", "5", "10", "30", "60", "+Inf"];
const histogram = (name: string, label: string, counts: number[], sum: string) => [
  ...buckets.map((le, i) => `${name}_bucket{${label},le="${le}"} ${counts[i]}`),
  `${name}_sum{${label}} ${sum}`,
  `${name}_count{${label}} ${counts.at(-1)}`,
];

/** The exposition toolnexus's ports all render for one 120 ms LLM call, one 40 ms tool call and one clean run. */
const REFERENCE = [
  "# HELP toolnexus_llm_requests_total Total LLM requests.",
  "# TYPE toolnexus_llm_requests_total counter",
  'toolnexus_llm_requests_total{model="gpt-x",status="ok"} 1',
  "# HELP toolnexus_llm_tokens_total Total tokens, by type.",
  "# TYPE toolnexus_llm_tokens_total counter",
  'toolnexus_llm_tokens_total{type="completion"} 2',
  'toolnexus_llm_tokens_total{type="prompt"} 3',
  "# HELP toolnexus_llm_request_duration_seconds LLM request duration in seconds.",
  "# TYPE toolnexus_llm_request_duration_seconds histogram",
  ...histogram("toolnexus_llm_request_duration_seconds", 'model="gpt-x"', [0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1], "0.12"),
  "# HELP toolnexus_tool_calls_total Total tool calls.",
  "# TYPE toolnexus_tool_calls_total counter",
  'toolnexus_tool_calls_total{tool="add",source="native",is_error="false",pending="false"} 1',
  "# HELP toolnexus_tool_duration_seconds Tool execution duration in seconds.",
  "# TYPE toolnexus_tool_duration_seconds histogram",
  ...histogram("toolnexus_tool_duration_seconds", 'tool="add"', [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], "0.04"),
  "# HELP toolnexus_run_errors_total Total run errors.",
  "# TYPE toolnexus_run_errors_total counter",
  "",
].join("\n");

const HEADERS_ONLY = REFERENCE.split("\n")
  .filter((l) => l.startsWith("#") || l === "")
  .join("\n");

describe("client.metrics() Prometheus exposition", () => {
  it("is byte-identical to toolnexus's reference for the same events", () => {
    const recorder = new MetricsRecorder();
    recorder.record({ event: "llm", model: "gpt-x", status: "ok", ms: 120, promptTokens: 3, completionTokens: 2, runUuid: "r", turn: 0 });
    recorder.record({ event: "tool", tool: "add", source: "native", isError: false, ms: 40, runUuid: "r", turn: 0, toolCallId: "c1" });
    recorder.record({ event: "run", model: "gpt-x", turns: 2, toolCalls: 1, totalTokens: 16, ms: 200, runUuid: "r" });
    expect(recorder.render()).toBe(REFERENCE);
  });

  it("renders every metric's # HELP / # TYPE header before any activity", () => {
    const client = createClient({ baseUrl: "http://127.0.0.1:9", style: "openai", model: "gpt-x", apiKey: "k", runtime: createRuntime() });
    expect(client.metrics()).toBe(HEADERS_ONLY);
  });

  it("a failed call counts as status error with no token series; a failed run counts in run_errors", () => {
    const recorder = new MetricsRecorder();
    recorder.record({ event: "llm", model: 'm"1', status: "error", ms: 10, promptTokens: 0, completionTokens: 0, runUuid: "r", turn: 0 });
    recorder.record({ event: "run", model: 'm"1', turns: 0, toolCalls: 0, totalTokens: 0, ms: 11, error: "LLM 500", runUuid: "r" });
    const text = recorder.render();
    expect(text).toContain('toolnexus_llm_requests_total{model="m\\"1",status="error"} 1\n');
    expect(text).not.toMatch(/^toolnexus_llm_tokens_total\{/m);
    expect(text.endsWith('# TYPE toolnexus_run_errors_total counter\ntoolnexus_run_errors_total{model="m\\"1"} 1\n')).toBe(true);
  });

  it("a real run produces the reference layout, timings aside", async () => {
    const srv = await startProvider([
      {
        json: {
          model: "gpt-x",
          choices: [
            {
              index: 0,
              message: {
                role: "assistant",
                content: null,
                tool_calls: [{ id: "c1", type: "function", function: { name: "add", arguments: '{"a":2,"b":3}' } }],
              },
              finish_reason: "tool_calls",
            },
          ],
          usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
        },
      },
      reply("openai", "5"),
    ]);
    closers.push(srv.close);
    const add = defineTool({ name: "add", description: "add", execute: (a) => String(Number(a.a) + Number(a.b)) });
    const client = createClient({ baseUrl: srv.url, style: "openai", model: "gpt-x", apiKey: "k", runtime: createRuntime() });
    await client.run("add", { toolkit: await createToolkit({ tools: [add] }) });
    // Bucket counts and sums depend on timing; the rest must match the reference's shape line for line.
    const shape = (text: string) => text.split("\n").map((l) => l.replace(/(_bucket\{.*\}|_sum\{.*\}) .*$/, "$1 T"));
    const got = shape(client.metrics());
    const expected = shape(REFERENCE)
      .map((l) =>
        l
          .replace('status="ok"} 1', 'status="ok"} 2')
          .replace('{type="completion"} 2', '{type="completion"} 4')
          .replace('{type="prompt"} 3', '{type="prompt"} 7'),
      )
      .map((l) =>
        l.replace(
          'toolnexus_llm_request_duration_seconds_count{model="gpt-x"} 1',
          'toolnexus_llm_request_duration_seconds_count{model="gpt-x"} 2',
        ),
      );
    expect(got).toEqual(expected);
  });
});
