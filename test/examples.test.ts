import { rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { readAtofFile, spanIdOf, type AtofEvent, type ScopeEvent } from "relaytrace";
import { main as relayBasic } from "../examples/relay-basic.js";
import { main as relayThreeCalls } from "../examples/relay-three-calls.js";
import { main as relayWithLocalTool } from "../examples/relay-with-local-tool.js";
import { main as interceptAnnotation } from "../examples/intercept-annotation.js";
import { main as jaegerExport } from "../examples/jaeger-export.js";
import { main as durableResume } from "../examples/durable-resume.js";
import { main as snapshotExample } from "../examples/snapshot-test.js";
import { CARD, EMAIL, main as piiRedaction } from "../examples/pii-redaction.js";
import { main as aiSdkAgent } from "../examples/ai-sdk-agent.js";
import { main as openaiAgentsHandoff } from "../examples/openai-agents-handoff.js";
import { main as typedTools } from "../examples/typed-tools.js";
import { main as skillsExample, SKILLS_DIR } from "../examples/skills.js";
import { main as langchainTools } from "../examples/langchain-tools.js";
import { main as mcpToolsExample } from "../examples/mcp-tools.js";
import { main as httpRequestSpan } from "../examples/http-request-span.js";
import { main as openaiClient } from "../examples/openai-client.js";
import { main as anthropicClient } from "../examples/anthropic-client.js";
import { main as googleGenAIClient } from "../examples/google-genai-client.js";
import { decodeOtlp } from "./support/otlp.js";

// The examples talk to the reader on stdout; keep the test output readable.
beforeAll(() => void vi.spyOn(console, "log").mockImplementation(() => undefined));
afterAll(() => vi.restoreAllMocks());

const label = (e: AtofEvent) => (e.kind === "mark" ? `mark:${e.name}` : `${e.scope_category}:${e.name}`);
const scopes = (events: AtofEvent[]) => events.filter((e): e is ScopeEvent => e.kind === "scope");

describe("the RelayTool documentation examples, in relaytrace", () => {
  it("relay-basic: the relay call reaches the host and its output becomes the tool result", async () => {
    const { result, request, events } = await relayBasic();
    expect(result).toMatchObject({ status: "done", text: "it is sunny" });
    expect(request?.kind).toBe("tool_call");
    expect(result.toolCalls[0]).toMatchObject({ name: "lookup", output: "sunny, 31C", isError: false });
    // the trace records the relayed call as a tool scope that went pending, then its answer
    expect(events.map(label)).toEqual(expect.arrayContaining(["start:lookup", "mark:tool.pending", "mark:tool.answer"]));
    const agentStart = events[0]!;
    expect(agentStart.kind === "scope" && agentStart.category).toBe("agent");
    expect(events.filter((e) => e.name === "lookup").every((e) => e.parent_uuid === agentStart.uuid)).toBe(true);
  });

  it("relay-three-calls: all three calls ride one pending request, in order, after one model request", async () => {
    const { result, calls, modelRequests } = await relayThreeCalls();
    expect(result.status).toBe("pending");
    expect(calls.map((c) => [c.id, c.name])).toEqual([
      ["c1", "alpha"],
      ["c2", "beta"],
      ["c3", "gamma"],
    ]);
    expect(result.halt?.calls.map((c) => c.state)).toEqual(["suspended", "suspended", "suspended"]);
    expect(modelRequests).toBe(1);
  });

  it("relay-with-local-tool: the local tool runs, the declined relay becomes an error result, the run completes", async () => {
    const { result, realRan, events } = await relayWithLocalTool();
    expect(realRan).toBe(true);
    expect(result).toMatchObject({ status: "done", text: "handled the decline" });
    expect(result.toolCalls.map((c) => [c.name, c.output, c.isError])).toEqual([
      ["real_tool", "real-output", false],
      ["relayed_tool", "relay declined for relayed_tool: declined", true],
    ]);
    expect(events.map(label)).toContain("end:real_tool");
  });
});

describe("intercept-annotation", () => {
  it("records the annotation on the tool end and emits the pending marks right after it, under the tool", async () => {
    const { appResult, events, lines } = await interceptAnnotation();
    expect(appResult).toEqual({ result: { city: "Oslo", temp_c: 4 }, annotation: { cache: "miss", source: "weather-service" } });
    expect(events.map(label)).toEqual([
      "start:weather-agent",
      "start:get_weather",
      "end:get_weather",
      "mark:cache.lookup",
      "mark:audit.recorded",
      "end:weather-agent",
    ]);
    const toolEnd = events[2]!;
    expect(toolEnd.category_profile).toEqual({
      tool_call_id: "call_1",
      tool_result_annotation: { cache: "miss", source: "weather-service" },
    });
    const [cache, audit] = [events[3]!, events[4]!];
    expect(cache).toMatchObject({
      parent_uuid: toolEnd.uuid,
      category: "custom",
      category_profile: { subtype: "example.cache" },
      data: { hit: false, key: "weather:oslo" },
    });
    expect(audit).toMatchObject({ parent_uuid: toolEnd.uuid, data: { policy: "weather-v1" } });
    // the printed lines are the wire form: snake_case keys, parseable JSON
    expect(JSON.parse(lines[2]!)).toMatchObject({
      kind: "scope",
      scope_category: "end",
      category_profile: { tool_result_annotation: { cache: "miss" } },
    });
  });
});

describe("jaeger-export", () => {
  let server: Server;
  let endpoint: string;
  const received: { path: string; names: string[]; service: string | undefined }[] = [];

  beforeAll(async () => {
    // A real OTLP/HTTP JSON receiver standing in for Jaeger's port 4318.
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const body = decodeOtlp("traces", String(req.headers["content-type"]), Buffer.concat(chunks)) as unknown as {
          resourceSpans: {
            resource: { attributes: { key: string; value: { stringValue?: string } }[] };
            scopeSpans: { spans: { name: string }[] }[];
          }[];
        };
        for (const rs of body.resourceSpans) {
          const service = rs.resource.attributes.find((a) => a.key === "service.name")?.value.stringValue;
          received.push({ path: req.url ?? "", service, names: rs.scopeSpans.flatMap((s) => s.spans.map((span) => span.name)) });
        }
        res.writeHead(200, { "content-type": "application/json" });
        res.end("{}");
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it.each([
    ["full", ["weather-agent", "openai.chat_completions", "openai.chat_completions", "get_weather"]],
    ["openinference", ["weather-agent", "openai.chat_completions", "openai.chat_completions", "get_weather"]],
    ["gen_ai", ["invoke_agent weather-agent", "chat demo-model", "chat demo-model", "execute_tool get_weather"]],
  ])("exports the run with the %s projection", async (projection, names) => {
    received.length = 0;
    const out = await jaegerExport({ projection, endpoint });
    expect(out.projection).toBe(projection);
    expect(out.result.text).toBe("It is 4 °C with light rain in Oslo.");
    expect(out.diagnostics.filter((d) => d.code.startsWith("otel."))).toEqual([]);
    expect(received.map((r) => r.path)).toEqual(received.map(() => "/v1/traces"));
    expect(received.every((r) => r.service === "relaytrace-example")).toBe(true);
    expect(received.flatMap((r) => r.names).sort()).toEqual([...names].sort());
  });

  it("takes the projection from RELAYTRACE_PROJECTION and the endpoint from OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", async () => {
    received.length = 0;
    vi.stubEnv("RELAYTRACE_PROJECTION", "gen_ai");
    vi.stubEnv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", endpoint);
    try {
      const out = await jaegerExport();
      expect(out).toMatchObject({ projection: "gen_ai", endpoint });
      expect(received.flatMap((r) => r.names)).toContain("invoke_agent weather-agent");
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("rejects an unknown projection before running anything", async () => {
    await expect(jaegerExport({ projection: "zipkin", endpoint })).rejects.toThrow(/unknown projection "zipkin"/);
  });

  it("never throws into the app when no collector listens: failures are counted in diagnostics", async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", () => r()));
    const deadEndpoint = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/v1/traces`;
    await new Promise<void>((r) => closed.close(() => r()));
    const out = await jaegerExport({ projection: "full", endpoint: deadEndpoint });
    expect(out.result.status).toBe("done");
    expect(out.diagnostics.map((d) => d.code)).toContain("otel.export_failed");
  });
});

describe("durable-resume (two processes)", () => {
  it("the second process resumes the halted run and continues the same trace", { timeout: 30_000 }, async () => {
    const out = await durableResume();
    try {
      expect(out.halted.status).toBe("pending");
      expect(out.resumed).toEqual({ status: "done", text: "Invoice INV-7 sent to acme." });

      const first = (await readAtofFile(out.firstAtofPath)).events;
      const second = (await readAtofFile(out.secondAtofPath)).events;
      const haltedAgent = scopes(first).find((e) => e.category === "agent" && e.scope_category === "start")!;
      const resumedAgent = scopes(second).find((e) => e.category === "agent" && e.scope_category === "start")!;
      expect(first.map(label)).toContain("mark:tool.pending");
      // the resumed agent scope hangs under the halted one (via pending.data.traceContext)
      expect(resumedAgent.parent_uuid).toBe(haltedAgent.uuid);
      expect(resumedAgent.metadata).toMatchObject({ "relaytrace.resume_of": out.halted.pending!.id });
      // one trace id across both processes: the halted agent is the trace root
      const traceIds = out.traceparents.map((t) => t.split("-")[1]);
      expect(traceIds).toHaveLength(2);
      expect(traceIds[0]).toBe(haltedAgent.uuid.replace(/-/g, ""));
      expect(traceIds[1]).toBe(traceIds[0]);
    } finally {
      await rm(dirname(out.statePath), { recursive: true, force: true });
    }
  });
});

describe("snapshot-test", () => {
  it("gives the same snapshot on every run and matches the committed one", async () => {
    const { snapshot, tree } = await snapshotExample();
    const again = await snapshotExample();
    expect(again.snapshot).toEqual(snapshot);
    expect(tree).toBe(
      [
        "support-agent (INTERNAL, OK) openinference.span.kind=AGENT",
        "├─ • answer.ready",
        "├─ openai.chat_completions (CLIENT, OK) openinference.span.kind=LLM",
        "└─ lookup_order (CLIENT, OK) openinference.span.kind=TOOL",
      ].join("\n"),
    );
    expect(snapshot).toMatchSnapshot();
  });
});

describe("pii-redaction", () => {
  it.each(["mask", "hash", "drop"] as const)(
    "%s: the email and card vanish from ATOF, ATIF and all span projections; the app still sees them",
    async (mode) => {
      const out = await piiRedaction({ mode });
      expect(out.result.text).toBe(`Refunded 20 EUR to card ${CARD}; a receipt went to ${EMAIL}.`);
      expect(out.toolSaw).toMatchObject({ email: EMAIL, card: CARD });
      const texts = { atof: out.atofText, atif: out.atifText, ...out.spansText };
      expect(Object.keys(texts)).toEqual(["atof", "atif", "full", "openinference", "gen_ai"]);
      for (const [where, text] of Object.entries(texts)) {
        expect(text.length, where).toBeGreaterThan(0);
        expect(text, where).not.toContain(EMAIL);
        expect(text, where).not.toContain(CARD);
        expect(text, where).not.toContain(CARD.replace(/ /g, ""));
        // the content was exported, just redacted
        const marker = mode === "mask" ? "[REDACTED:email]" : mode === "hash" ? "[email:" : "[redacted]";
        expect(text, where).toContain(marker);
      }
    },
  );
});

describe("ai-sdk-agent", () => {
  it("the AI SDK run is one agent with two llm calls and one tool; the refused call reaches the model as an error", async () => {
    const { text, events, tree } = await aiSdkAgent();
    expect(text).toBe("Oslo: 4 °C and rain. Atlantis is not a city I can look up.");
    const ends = scopes(events).filter((e) => e.scope_category === "end");
    expect(ends.filter((e) => e.category === "llm")).toHaveLength(2);
    expect(ends.filter((e) => e.category === "tool").map((e) => e.category_profile?.["tool_call_id"])).toEqual(["call_1"]);
    expect(ends.find((e) => e.category === "guardrail" && (e.data as { rejected?: boolean }).rejected)?.data).toMatchObject({
      rejection_reason: "unknown city: Atlantis",
    });
    expect(tree.split("\n")[0]).toBe("weather-agent (INTERNAL, OK) openinference.span.kind=AGENT");
  });
});

describe("openai-agents-handoff", () => {
  it("each agent of the handoff is a trajectory; the billing agent's tool call has its id, observation and cached tokens", async () => {
    const { output, events, trajectories } = await openaiAgentsHandoff();
    expect(output).toBe("Invoice INV-7 was paid on 1 March.");
    expect(events.find((e) => e.kind === "mark" && e.name === "handoff")?.data).toEqual({ from_agent: "triage", to_agent: "billing" });
    expect(trajectories).toHaveLength(2);
    const [triage, billing] = trajectories;
    expect(triage!.steps[1]!.tool_calls?.map((c) => c.function_name)).toEqual(["transfer_to_billing"]);
    expect(billing!.steps[0]!.tool_calls?.map((c) => c.tool_call_id)).toEqual(["call_2"]);
    expect(billing!.steps[0]!.observation?.results.map((r) => r.source_call_id)).toEqual(["call_2"]);
    expect(billing!.steps[0]!.metrics).toMatchObject({ prompt_tokens: 60, cached_tokens: 48 });
    expect(billing!.steps[1]!.message).toBe("Invoice INV-7 was paid on 1 March.");
  });
});

describe("typed-tools", () => {
  it("the literal-schema tool adds without casts; the zod tool is declared as JSON Schema and gets its default", async () => {
    const { result, declared } = await typedTools();
    expect(result.toolCalls.map((c) => [c.name, c.output, c.isError])).toEqual([
      ["add", "7", false],
      ["forecast", "Oslo: dry for 2 days", false],
    ]);
    expect(declared.forecast).toMatchObject({
      type: "object",
      properties: { city: { type: "string" }, days: { type: "integer", minimum: 1, default: 2 } },
      required: ["city"],
    });
    expect(result.text).toBe("7, and Oslo looks dry for 2 days");
  });
});

describe("skills", () => {
  it("the catalog reaches the system prompt, the skill tool loads the skill, and the trace records skill.load under the tool", async () => {
    const { result, systemPrompt, events } = await skillsExample();
    expect(systemPrompt).toBe(
      "You write for end users.\n\nSkills provide specialized instructions and workflows for specific tasks.\n" +
        "Use the skill tool to load a skill when a task matches its description.\n\n## Available Skills\n" +
        "- **release-notes**: Write release notes from a list of merged changes, grouped by user impact.",
    );
    const loaded = result.toolCalls[0]!;
    expect(loaded).toMatchObject({ name: "skill", isError: false });
    expect(loaded.output.startsWith('<skill_content name="release-notes">\n# Skill: release-notes\n\n# Writing release notes')).toBe(true);
    expect(loaded.output).toContain(`<file>${SKILLS_DIR}release-notes/templates/notes.md</file>`);
    const tool = scopes(events).find((e) => e.category === "tool" && e.scope_category === "start")!;
    const mark = events.find((e) => e.kind === "mark" && e.name === "skill.load")!;
    expect(mark).toMatchObject({
      parent_uuid: tool.uuid,
      data: { skill_name: "release-notes" },
      metadata: { skill_load_source: "skill_tool", tool_name: "skill" },
    });
    expect(tool.metadata).toMatchObject({ tool_source: "skill" });
  });
});

describe("langchain-tools", () => {
  it("the LangChain loop is one agent span with two chats and the tool, nested by run ids", async () => {
    const { answer, events, tree } = await langchainTools();
    expect(answer).toBe("20 EUR is about 235 NOK.");
    expect(tree.split("\n")).toEqual([
      "invoke_agent currency-agent (INTERNAL, OK) gen_ai.operation.name=invoke_agent",
      "├─ chat gpt-4.1-mini (CLIENT, OK) gen_ai.operation.name=chat",
      "├─ execute_tool convert_currency (INTERNAL, OK) gen_ai.operation.name=execute_tool",
      "└─ chat gpt-4.1-mini (CLIENT, OK) gen_ai.operation.name=chat",
    ]);
    const toolEnd = scopes(events).find((e) => e.category === "tool" && e.scope_category === "end")!;
    expect(toolEnd).toMatchObject({ category_profile: { tool_call_id: "call_1" }, data: 235 });
  });
});

describe("mcp-tools", () => {
  it("the loop calls the MCP server's tool over stdio, and the traced resource read carries its trace context", async () => {
    const { result, stations, events } = await mcpToolsExample();
    expect(result).toMatchObject({ status: "done", text: "It is 4 °C in Oslo." });
    expect(result.toolCalls.map((c) => [c.id, c.name, c.isError])).toEqual([["call_1", "weather_get_weather", false]]);
    const read = scopes(events).find((e) => e.name === "resources/read weather://stations" && e.scope_category === "start")!;
    expect(read.metadata).toMatchObject({ "mcp.method.name": "resources/read", "network.transport": "pipe" });
    expect((JSON.parse(stations) as { traceparent: string }).traceparent.split("-")[2]).toBe(spanIdOf(read.uuid));
  });
});

describe("http-request-span", () => {
  it("puts the agent run inside the app's HTTP request span: one trace, the provider's undici span under each model call", async () => {
    const { tree, traceIds, answer } = await httpRequestSpan();
    expect(answer).toBe("Order A-17 has shipped.");
    expect(traceIds).toBe(1);
    expect(tree).toEqual([
      "GET",
      "  GET /ask",
      "    invoke_agent support-agent",
      "      chat support-model",
      "        POST",
      "      execute_tool order_status",
      "        SELECT orders",
      "      chat support-model",
      "        POST",
    ]);
  });
});

describe("provider SDK clients traced in one line", () => {
  const llmEnds = (events: AtofEvent[]) => scopes(events).filter((e) => e.category === "llm" && e.scope_category === "end");

  it("openai-client: a JSON and a streamed chat call become two priced llm scopes under the app's agent scope", async () => {
    const { answer, streamed, events, tree } = await openaiClient();
    expect([answer, streamed]).toEqual(["Oslo is the capital of Norway.", "Bergen is known for its rain."]);
    expect(tree.split("\n")).toEqual([
      "invoke_agent geography-agent (INTERNAL, OK) gen_ai.operation.name=invoke_agent",
      "├─ chat gpt-4.1-mini (CLIENT, OK) gen_ai.operation.name=chat",
      "└─ chat gpt-4.1-mini (CLIENT, OK) gen_ai.operation.name=chat",
    ]);
    const ends = llmEnds(events);
    const costs = ends.map((e) => (e.category_profile as { cost?: { total: number } }).cost?.total ?? NaN);
    expect(costs[0]).toBeCloseTo((24 * 0.4 + 8 * 1.6) / 1e6, 12);
    expect(costs[1]).toBeCloseTo((40 * 0.4 + 9 * 1.6) / 1e6, 12);
    expect(ends[1]!.metadata).toMatchObject({ time_to_first_chunk_ms: expect.any(Number) });
  });

  it("anthropic-client: messages.create and the messages.stream() helper make one llm scope each", async () => {
    const { summary, translated, tree } = await anthropicClient();
    expect([summary, translated]).toEqual(["A short note about tides.", "Une courte note sur les marées."]);
    expect(tree.split("\n")).toEqual([
      "invoke_agent notes-agent (INTERNAL, OK) gen_ai.operation.name=invoke_agent",
      "├─ chat claude-sonnet-4-5 (CLIENT, OK) gen_ai.operation.name=chat",
      "└─ chat claude-sonnet-4-5 (CLIENT, OK) gen_ai.operation.name=chat",
    ]);
  });

  it("google-genai-client: automatic function calling records each model request; the stream is recorded assembled", async () => {
    const { answer, streamed, events, tree } = await googleGenAIClient();
    expect([answer, streamed]).toEqual(["It is 4 °C at Blindern.", "Dress warmly."]);
    expect(tree.split("\n")).toEqual([
      "invoke_agent weather-agent (INTERNAL, OK) gen_ai.operation.name=invoke_agent",
      "├─ generate_content gemini-2.5-flash (CLIENT, OK) gen_ai.operation.name=generate_content",
      "├─ generate_content gemini-2.5-flash (CLIENT, OK) gen_ai.operation.name=generate_content",
      "└─ generate_content gemini-2.5-flash (CLIENT, OK) gen_ai.operation.name=generate_content",
    ]);
    const usage = llmEnds(events).map((e) => (e.data as { usageMetadata: { promptTokenCount: number } }).usageMetadata.promptTokenCount);
    expect(usage).toEqual([30, 52, 10]);
  });
});
