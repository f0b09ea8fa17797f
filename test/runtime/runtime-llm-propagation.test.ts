import { context, createTraceState, trace, TraceFlags } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { propagationContextToJson } from "../../src/runtime/propagation.js";
import { extractTraceContext } from "../../src/runtime/otel-context.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Json } from "../../src/events/json.js";
import { traceLinkOf } from "../../src/events/trace-link.js";
import { spanIdOf, uuidHex } from "../../src/events/uuid.js";
import { RelaytraceError } from "../../src/runtime/errors.js";
import type { LlmRequest } from "../../src/runtime/types.js";
import { capturingRuntime, labels } from "../support/capture.js";
import { startProvider, type FakeProvider } from "../support/providers-server.js";

const CREDENTIALS = {
  Authorization: "Bearer sk-canary-1",
  "proxy-authorization": "Basic canary-2",
  COOKIE: "session=canary-3",
  "X-Api-Key": "canary-4",
  "api-key": "canary-5",
  "Anthropic-Api-Key": "canary-6",
  "x-goog-api-key": "canary-7",
};

describe("LLM calls", () => {
  it("strips every credential header from events while the provider gets the real request plus traceparent", async () => {
    const { rt, settle } = capturingRuntime();
    let sent: LlmRequest | undefined;
    const response = await rt.withScope(
      "agent",
      () =>
        rt.executeLlm(
          "openai.chat_completions",
          { headers: { ...CREDENTIALS, "content-type": "application/json" }, content: { model: "m", messages: [] } },
          (request) => {
            sent = request;
            return { choices: [{ message: { content: "hi" } }], model: "m-2026" };
          },
          { modelName: "m", attributes: ["streaming"], metadata: { turn: 0 } },
        ),
      { category: "agent" },
    );
    expect(response).toEqual({ choices: [{ message: { content: "hi" } }], model: "m-2026" });
    expect(sent!.headers).toMatchObject(CREDENTIALS);
    const events = await settle();
    const [agentStart, start, end] = events;
    expect(sent!.headers!.traceparent).toBe(`00-${uuidHex(agentStart!.uuid)}-${spanIdOf(start!.uuid)}-01`);
    const text = JSON.stringify(events);
    for (let i = 1; i <= 7; i++) expect(text).not.toContain(`canary-${i}`);
    expect(start).toMatchObject({
      name: "openai.chat_completions",
      category: "llm",
      attributes: ["streaming"],
      category_profile: { model_name: "m" },
      data: { headers: { "content-type": "application/json" }, content: { model: "m", messages: [] } },
      metadata: { turn: 0 },
    });
    expect(end).toMatchObject({
      data: { choices: [{ message: { content: "hi" } }], model: "m-2026" },
      metadata: { turn: 0, "otel.status_code": "OK" },
    });
  });

  it("applies the LLM sanitize chains, and a failing one omits the payload", async () => {
    const { rt, settle } = capturingRuntime();
    rt.registerLlmSanitizeRequest("drop-content", 0, (req) => ({ ...(req as object), content: "[redacted]" }));
    rt.registerLlmSanitizeResponse("broken", 0, () => {
      throw new Error("bug");
    });
    await rt.executeLlm("anthropic.messages", { content: { messages: [{ role: "user", content: "my secret" }] } }, () => ({
      content: [{ type: "text", text: "secret reply" }],
    }));
    const [start, end] = await settle();
    expect(start!.data).toEqual({ headers: {}, content: "[redacted]" });
    expect(end!.data).toBeNull();
    expect(JSON.stringify([start, end])).not.toContain("secret");
  });

  it("ends with the error keys when the call fails, and rejects with the original error", async () => {
    const { rt, settle } = capturingRuntime();
    const failure = new RelaytraceError("retryable_status", "LLM 503: overloaded");
    await expect(rt.executeLlm("openai.chat_completions", { content: {} }, () => Promise.reject(failure))).rejects.toBe(failure);
    const end = (await settle())[1]!;
    expect(end.metadata).toEqual({
      "otel.status_code": "ERROR",
      "otel.status_description": "LLM 503: overloaded",
      "error.type": "retryable_status",
    });
    expect(end.data).toBeNull();
  });

  it("manual startLlm/endLlm carries OK status and the model actually used", async () => {
    const { rt, settle } = capturingRuntime();
    const h = rt.startLlm(
      "openai.chat_completions",
      { headers: { authorization: "Bearer x" }, content: { stream: true } },
      { modelName: "m", attributes: ["streaming"] },
    );
    rt.endLlm(h, { text: "streamed" }, { metadata: { time_to_first_chunk_ms: 12 }, modelName: "m-actual" });
    const [start, end] = await settle();
    expect(start!.data).toEqual({ headers: { authorization: "[redacted]" }, content: { stream: true } });
    expect(end).toMatchObject({
      category_profile: { model_name: "m-actual" },
      metadata: { time_to_first_chunk_ms: 12, "otel.status_code": "OK" },
    });
  });
});

describe("propagation", () => {
  it("captures {version, rootUuid, parentUuid}, sent as JSON text it continues the same trace elsewhere", async () => {
    const { rt, settle } = capturingRuntime();
    let ctx: Json = null;
    await rt.withScope(
      "halted-run",
      () => {
        ctx = JSON.parse(propagationContextToJson(rt.capturePropagationContext())) as Json;
      },
      { category: "agent" },
    );
    const first = (await settle())[0]!;
    expect(ctx).toEqual({ version: 1, root_uuid: first.uuid, parent_uuid: first.uuid });

    const other = capturingRuntime(); // e.g. another process
    await other.rt.withPropagation(ctx as never, () =>
      other.rt.withScope(
        "resumed-run",
        async () => {
          expect(other.rt.capturePropagationContext().rootUuid).toBe(first.uuid);
          expect(other.rt.captureTraceparent().startsWith(`00-${uuidHex(first.uuid)}-`)).toBe(true);
        },
        { category: "agent" },
      ),
    );
    const resumed = (await other.settle())[0]!;
    expect(resumed.parent_uuid).toBe(first.uuid);
    // The resumed run's first event carries the remote trace it continues (what exporters parent it to).
    expect(traceLinkOf(resumed)).toEqual({ rootUuid: first.uuid, parentUuid: first.uuid });
  });

  it("inside a managed tool, the traceparent's span id is the tool's", async () => {
    const { rt, settle } = capturingRuntime();
    let traceparent = "";
    let parentInTool = "";
    await rt.withScope("agent", () =>
      rt.executeTool("t", {}, () => {
        traceparent = rt.captureTraceparent();
        parentInTool = rt.capturePropagationContext().parentUuid;
        return { result: null };
      }),
    );
    const [agent, tool] = await settle();
    expect(traceparent).toBe(`00-${uuidHex(agent!.uuid)}-${spanIdOf(tool!.uuid)}-01`);
    expect(parentInTool).toBe(tool!.uuid);
    expect(labels(await settle())).toEqual(["start:function:agent", "start:tool:t", "end:tool:t", "end:function:agent"]);
  });

  it("validates contexts and refuses a traceparent with no emitted scope", () => {
    const { rt } = capturingRuntime();
    expect(() => rt.withPropagation({ version: 2 } as never, () => 1)).toThrow("unsupported propagation context version 2; expected 1");
    expect(() => rt.withPropagation({ version: 1, parent_uuid: "019ca945-0a01-7651-0000-000000000000" }, () => 1)).toThrow(/all zero/);
    expect(() => rt.withPropagation({ version: 1, parent_uuid: "not-a-uuid" }, () => 1)).toThrow(/must be a uuid/);
    expect(() => rt.captureTraceparent()).toThrow("no emitted scope is available for traceparent capture");
  });
});

describe("the trace context sent to the provider", () => {
  const CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
  const CALLER_SPAN = "00f067aa0ba902b7";
  const CALLER_STATE = "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7";
  let provider: FakeProvider;
  const contextManager = new AsyncLocalStorageContextManager();

  // An app that traces with the OTel SDK but registered no propagator: relaytrace writes the headers.
  beforeAll(() => {
    context.setGlobalContextManager(contextManager.enable());
  });
  afterAll(() => {
    context.disable();
  });
  afterEach(async () => {
    await provider?.close();
  });

  /** An LLM call whose `fn` posts the real request to a loopback provider; resolves with the headers it received. */
  async function headersReceived(rt: ReturnType<typeof capturingRuntime>["rt"], headers: Record<string, string>) {
    provider = await startProvider([{ body: { choices: [] } }]);
    await rt.withScope(
      "agent",
      () =>
        rt.executeLlm("openai.chat_completions", { headers, content: { model: "m", messages: [] } }, async (req) => {
          const res = await fetch(`${provider.baseUrl}/v1/chat/completions`, {
            method: "POST",
            headers: req.headers as Record<string, string>,
            body: JSON.stringify(req.content),
          });
          return (await res.json()) as Json;
        }),
      { category: "agent" },
    );
    return provider.requests[0]!.headers;
  }

  it("carries the caller's tracestate with the traceparent when the run continues an incoming request", async () => {
    const { rt, settle } = capturingRuntime();
    const incoming = extractTraceContext({ traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01`, tracestate: CALLER_STATE })!;
    // a stale tracestate the app copied along is replaced, whatever its case
    const received = await rt.withPropagation(incoming, () =>
      headersReceived(rt, { "content-type": "application/json", TraceState: "stale=1" }),
    );
    const llm = (await settle()).find((e) => e.kind === "scope" && e.category === "llm")!;
    expect(received.traceparent).toBe(`00-${CALLER_TRACE}-${spanIdOf(llm.uuid)}-01`);
    expect(received.tracestate).toBe(CALLER_STATE);
  });

  it("carries the active OpenTelemetry span's tracestate when the run starts inside it", async () => {
    const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new InMemorySpanExporter())] }).getTracer("app");
    const parent = trace.setSpanContext(context.active(), {
      traceId: CALLER_TRACE,
      spanId: CALLER_SPAN,
      traceFlags: TraceFlags.SAMPLED,
      isRemote: true,
      traceState: createTraceState(CALLER_STATE),
    });
    const { rt, settle } = capturingRuntime();
    const received = await context.with(parent, () =>
      tracer.startActiveSpan("handler", async (span) => {
        try {
          return await headersReceived(rt, {});
        } finally {
          span.end();
        }
      }),
    );
    const llm = (await settle()).find((e) => e.kind === "scope" && e.category === "llm")!;
    expect(received.traceparent).toBe(`00-${CALLER_TRACE}-${spanIdOf(llm.uuid)}-01`);
    expect(received.tracestate).toBe(CALLER_STATE);
  });

  it("sends no tracestate when the trace has none, and leaves the app's own alone", async () => {
    const { rt } = capturingRuntime();
    expect((await headersReceived(rt, {})).tracestate).toBeUndefined();
    const { rt: other } = capturingRuntime();
    expect((await headersReceived(other, { tracestate: "app=1" })).tracestate).toBe("app=1");
  });
});
