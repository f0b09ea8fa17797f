import { describe, expect, it } from "vitest";
import type { Json } from "../../src/events/json.js";
import type { Dialect } from "../../src/wire/index.js";
import { recordRun, replayServers } from "../support/recorded-run.js";

// A strict replay's 409 points into the received body at the first difference, down to the
// field inside the message: the text part, a tool call's id, name or arguments, a tool result.

const replay = replayServers();

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the cases edit request bodies of four dialects in place
type Body = any;

interface Case {
  what: string;
  change: (body: Body) => void;
  path: string;
  expected: Json;
  actual: Json;
}

const ROUTES: Record<Dialect, string> = {
  openai: "/chat/completions",
  "openai-responses": "/responses",
  anthropic: "/v1/messages",
  gemini: "/v1beta/models/m-1:generateContent",
};

const RESULT = '{"city":"Oslo","temp_c":4}';
const OTHER_RESULT = '{"city":"Oslo","temp_c":5}';

const CASES: Record<Dialect, Case[]> = {
  openai: [
    {
      what: "system prompt",
      change: (b) => (b.messages[0].content = "Be long."),
      path: "/messages/0/content",
      expected: "Be brief.",
      actual: "Be long.",
    },
    {
      what: "the text part that differs",
      change: (b) =>
        (b.messages[1].content = [
          { type: "text", text: "Weather in " },
          { type: "text", text: "Bergen?" },
        ]),
      path: "/messages/1/content/1/text",
      expected: "Weather in Oslo?",
      actual: "Weather in Bergen?",
    },
    { what: "role", change: (b) => (b.messages[1].role = "assistant"), path: "/messages/1/role", expected: "user", actual: "assistant" },
    {
      what: "tool call arguments",
      change: (b) => (b.messages[2].tool_calls[0].function.arguments = '{"city":"Bergen"}'),
      path: "/messages/2/tool_calls/0/function/arguments",
      expected: { city: "Oslo" },
      actual: { city: "Bergen" },
    },
    {
      what: "tool call name",
      change: (b) => (b.messages[2].tool_calls[0].function.name = "get_time"),
      path: "/messages/2/tool_calls/0/function/name",
      expected: "get_weather",
      actual: "get_time",
    },
    {
      what: "an extra tool call",
      change: (b) => b.messages[2].tool_calls.push({ id: "call_2", type: "function", function: { name: "get_time", arguments: "{}" } }),
      path: "/messages/2/tool_calls/1",
      expected: null,
      actual: { id: "call_2", name: "get_time", input: {} },
    },
    {
      what: "tool result",
      change: (b) => (b.messages[3].content = OTHER_RESULT),
      path: "/messages/3/content",
      expected: RESULT,
      actual: OTHER_RESULT,
    },
    {
      what: "tool result id",
      change: (b) => (b.messages[3].tool_call_id = "call_9"),
      path: "/messages/3/tool_call_id",
      expected: "call_1",
      actual: "call_9",
    },
  ],
  "openai-responses": [
    {
      what: "system prompt",
      change: (b) => (b.instructions = "Be long."),
      path: "/instructions",
      expected: "Be brief.",
      actual: "Be long.",
    },
    {
      what: "the text part that differs",
      change: (b) => (b.input[0].content = [{ type: "input_text", text: "Weather in Bergen?" }]),
      path: "/input/0/content/0/text",
      expected: "Weather in Oslo?",
      actual: "Weather in Bergen?",
    },
    {
      what: "tool call arguments",
      change: (b) => (b.input[1].arguments = '{"city":"Bergen"}'),
      path: "/input/1/arguments",
      expected: { city: "Oslo" },
      actual: { city: "Bergen" },
    },
    {
      what: "tool call id",
      change: (b) => (b.input[1].call_id = "call_9"),
      path: "/input/1/call_id",
      expected: "call_1",
      actual: "call_9",
    },
    {
      what: "tool result",
      change: (b) => (b.input[2].output = OTHER_RESULT),
      path: "/input/2/output",
      expected: RESULT,
      actual: OTHER_RESULT,
    },
  ],
  anthropic: [
    {
      what: "the system block that differs",
      change: (b) =>
        (b.system = [
          { type: "text", text: "Be brief." },
          { type: "text", text: "Really." },
        ]),
      path: "/system/1/text",
      expected: "Be brief.",
      actual: "Be brief.\nReally.",
    },
    {
      what: "text",
      change: (b) => (b.messages[0].content = "Weather in Bergen?"),
      path: "/messages/0/content",
      expected: "Weather in Oslo?",
      actual: "Weather in Bergen?",
    },
    {
      what: "tool call arguments",
      change: (b) => (b.messages[1].content[0].input = { city: "Bergen" }),
      path: "/messages/1/content/0/input",
      expected: { city: "Oslo" },
      actual: { city: "Bergen" },
    },
    {
      what: "tool result",
      change: (b) => (b.messages[2].content[0].content = OTHER_RESULT),
      path: "/messages/2/content/0/content",
      expected: RESULT,
      actual: OTHER_RESULT,
    },
  ],
  gemini: [
    {
      what: "system prompt",
      change: (b) => (b.systemInstruction.parts[0].text = "Be long."),
      path: "/systemInstruction/parts/0/text",
      expected: "Be brief.",
      actual: "Be long.",
    },
    {
      what: "text",
      change: (b) => (b.contents[0].parts[0].text = "Weather in Bergen?"),
      path: "/contents/0/parts/0/text",
      expected: "Weather in Oslo?",
      actual: "Weather in Bergen?",
    },
    {
      what: "tool call arguments",
      change: (b) => (b.contents[1].parts[0].functionCall.args = { city: "Bergen" }),
      path: "/contents/1/parts/0/functionCall/args",
      expected: { city: "Oslo" },
      actual: { city: "Bergen" },
    },
    {
      what: "tool result",
      change: (b) => (b.contents[2].parts[0].functionResponse.response = { output: OTHER_RESULT }),
      path: "/contents/2/parts/0/functionResponse/response",
      expected: RESULT,
      actual: OTHER_RESULT,
    },
  ],
};

function post(url: string, body: unknown): Promise<Response> {
  return fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
}

describe.each(Object.keys(CASES) as Dialect[])("a strict %s replay's mismatch", (style) => {
  it("points at the field inside the received message where the transcript first differs", async () => {
    const recorded = await recordRun(style);
    const bodies = recorded.events
      .filter((e) => e.kind === "scope" && e.category === "llm" && e.scope_category === "start")
      .map((e) => (e.data as { content: Body }).content);
    const server = await replay({ events: recorded.events });
    const url = server.url + ROUTES[style];
    expect((await post(url, bodies[0])).status).toBe(200);
    for (const c of CASES[style]) {
      const body = structuredClone(bodies[1]!);
      c.change(body);
      const res = await post(url, body);
      expect([c.what, res.status]).toEqual([c.what, 409]);
      const { error } = (await res.json()) as { error: Record<string, Json> };
      expect({ what: c.what, ...error }).toEqual({
        what: c.what,
        type: "replay_mismatch",
        message: `request does not match recorded call 1 at ${c.path}`,
        call: 1,
        path: c.path,
        expected: c.expected,
        actual: c.actual,
      });
    }
    // A message missing from the end is pointed at whole, and the recorded one is the expected value.
    const short = structuredClone(bodies[1]!);
    const list = style === "gemini" ? short.contents : style === "openai-responses" ? short.input : short.messages;
    list.pop();
    const missing = (await (await post(url, short)).json()) as { error: { path: string; actual: Json } };
    expect([missing.error.path, missing.error.actual]).toEqual([
      `/${style === "gemini" ? "contents" : style === "openai-responses" ? "input" : "messages"}/${list.length}`,
      null,
    ]);
    expect(server.mismatches).toHaveLength(CASES[style].length + 1);
    // The recorded request itself still matches: no mismatch uses up the call.
    expect((await post(url, bodies[1])).status).toBe(200);
    expect(server.served).toBe(2);
  });
});

describe("a strict replay", () => {
  it("compares decoded transcripts only: not JSON spelling (content null or empty), tools, model, settings or stream", async () => {
    const recorded = await recordRun("openai");
    const bodies = recorded.events
      .filter((e) => e.kind === "scope" && e.category === "llm" && e.scope_category === "start")
      .map((e) => (e.data as { content: Body }).content);
    const server = await replay({ events: recorded.events });
    expect((await post(server.url + "/chat/completions", bodies[0])).status).toBe(200);
    const body = structuredClone(bodies[1]!);
    body.messages[2].content = null;
    body.messages[2].tool_calls[0].function.arguments = '{ "city": "Oslo" }';
    body.temperature = 0.7;
    body.model = "another-model";
    body.stream = false;
    body.tools = [];
    expect((await post(server.url + "/chat/completions", body)).status).toBe(200);
    expect(server.mismatches).toEqual([]);
  });
});
