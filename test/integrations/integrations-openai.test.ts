import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import OpenAI, { APIUserAbortError, BadRequestError } from "openai";
import { describe, expect, it } from "vitest";
import { createRuntime, defaultRuntime, setDefaultRuntime, spanIdOf } from "relaytrace";
import { traceOpenAI } from "relaytrace/openai";
import { EventCapture, startScriptedProvider } from "relaytrace/testing";
import { ended, eventText, sdkServers, jsonReply, scopesOf, sdkRun, sseReply, turn } from "../support/sdk-run.js";

const MODEL = "gpt-4.1-mini";
const KEY = "sk-live-4f9a1c77e2b0d3";
const { cleanups, scripted, provider } = sdkServers(undefined, MODEL);

function client(baseURL: string): OpenAI {
  return new OpenAI({ apiKey: KEY, baseURL, maxRetries: 0 });
}

const ask = (content: string) => ({ model: MODEL, messages: [{ role: "user" as const, content }] });

describe("traceOpenAI: chat.completions.create", () => {
  it("JSON: one llm scope under the app's scope, the request as sent, the reply through the Chat Completions codec, cost, gen_ai and ATIF", async () => {
    const server = await scripted([{ text: "It is sunny.", usage: { promptTokens: 1000, completionTokens: 500 } }]);
    const run = sdkRun();
    const openai = traceOpenAI(client(server.url), { runtime: run.runtime });
    let agentUuid = "";
    const completion = await run.runtime.withScope(
      "weather-agent",
      async (scope) => {
        agentUuid = scope.uuid;
        return openai.chat.completions.create({ ...ask("Weather in Oslo?"), temperature: 0.2 });
      },
      { category: "agent" },
    );
    expect(completion.choices[0]!.message.content).toBe("It is sunny.");
    const { events, spans, trajectories } = await run.finish();
    const [call] = scopesOf(events);
    expect(call!.start).toMatchObject({
      name: "openai.chat_completions",
      parent_uuid: agentUuid,
      data_schema: { name: "openai/chat-completions", version: "1" },
      category_profile: { model_name: MODEL },
      data: { headers: {}, content: { ...ask("Weather in Oslo?"), temperature: 0.2 } },
      metadata: { server_address: "127.0.0.1" },
    });
    expect(call!.end).toMatchObject({
      metadata: { "otel.status_code": "OK" },
      data: { choices: [{ message: { content: "It is sunny." } }], usage: { prompt_tokens: 1000, completion_tokens: 500 } },
      // $1 per million input tokens, $2 per million output
      category_profile: { cost: { total: 0.002, currency: "USD" } },
    });
    const chat = spans.find((s) => s.name === `chat ${MODEL}`)!;
    expect(chat.attributes).toMatchObject({ "gen_ai.usage.input_tokens": 1000, "gen_ai.usage.output_tokens": 500 });
    expect(JSON.stringify(chat.attributes["gen_ai.output.messages"])).toContain("It is sunny.");
    expect(JSON.stringify(trajectories[0]!.steps)).toContain("It is sunny.");
  });

  it("hands back the SDK's own APIPromise: withResponse() and asResponse() work, and the scope still records the reply", async () => {
    const server = await scripted([{ text: "one" }, { text: "two" }]);
    const run = sdkRun();
    const openai = traceOpenAI(client(server.url), { runtime: run.runtime });
    const { data, response } = await openai.chat.completions.create(ask("a")).withResponse();
    expect(data.choices[0]!.message.content).toBe("one");
    expect(response.status).toBe(200);
    // The raw response only: the app reads the body itself, untouched.
    const raw = await openai.chat.completions.create(ask("b")).asResponse();
    expect(((await raw.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toBe("two");
    const calls = await ended(run, 2);
    expect(calls.map((c) => (c.end!.data as { choices: { message: { content: string } }[] }).choices[0]!.message.content)).toEqual([
      "one",
      "two",
    ]);
  });

  it("stream: the SDK's Stream iterates as without relaytrace; the scope records the assembled reply, time to first chunk and usage", async () => {
    const server = await scripted([{ text: "Streamed answer", usage: { promptTokens: 30, completionTokens: 3 } }]);
    const run = sdkRun();
    const openai = traceOpenAI(client(server.url), { runtime: run.runtime });
    const stream = await openai.chat.completions.create({ ...ask("hi"), stream: true, stream_options: { include_usage: true } });
    expect(stream.constructor.name).toBe("Stream");
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    expect(text).toBe("Streamed answer");
    const [call] = await ended(run, 1);
    expect(call!.start.attributes).toEqual(["streaming"]);
    expect(call!.end).toMatchObject({
      data: { choices: [{ message: { content: "Streamed answer" } }], usage: { prompt_tokens: 30, completion_tokens: 3 } },
      metadata: { "otel.status_code": "OK" },
    });
    const meta = call!.end!.metadata as Record<string, unknown>;
    expect(meta["time_to_first_chunk_ms"]).toBeGreaterThanOrEqual(0);
    expect(meta["relaytrace.stream_incomplete"]).toBeUndefined();
  });

  it("a traced stream still converts with toReadableStream() and splits with tee()", async () => {
    const server = await scripted([{ text: "readable" }, { text: "teed" }]);
    const run = sdkRun();
    const openai = traceOpenAI(client(server.url), { runtime: run.runtime });
    const readable = (await openai.chat.completions.create({ ...ask("a"), stream: true })).toReadableStream();
    const lines = (await new Response(readable).text()).trim().split("\n");
    expect(
      lines.map((l) => (JSON.parse(l) as { choices: { delta: { content?: string } }[] }).choices[0]?.delta.content ?? "").join(""),
    ).toBe("readable");
    const [left, right] = (await openai.chat.completions.create({ ...ask("b"), stream: true })).tee();
    const read = async (s: typeof left) => {
      let t = "";
      for await (const c of s) t += c.choices[0]?.delta.content ?? "";
      return t;
    };
    expect(await Promise.all([read(left), read(right)])).toEqual(["teed", "teed"]);
    const calls = await ended(run, 2);
    expect(calls.map((c) => (c.end!.data as { choices: { message: { content: string } }[] }).choices[0]!.message.content)).toEqual([
      "readable",
      "teed",
    ]);
  });

  it("the SDK's helpers built on create (chat.completions.stream, parse) are traced through it: one scope per request", async () => {
    const server = await scripted([{ text: "helper stream" }, { text: '{"city":"Oslo"}' }]);
    const run = sdkRun();
    const openai = traceOpenAI(client(server.url), { runtime: run.runtime });
    const final = await openai.chat.completions.stream(ask("a")).finalChatCompletion();
    expect(final.choices[0]!.message.content).toBe("helper stream");
    const parsed = await openai.chat.completions.parse({
      ...ask("b"),
      response_format: { type: "json_schema", json_schema: { name: "place", schema: { type: "object" } } },
    });
    expect(parsed.choices[0]!.message.parsed).toEqual({ city: "Oslo" });
    const calls = await ended(run, 2);
    await run.runtime.flush();
    expect(scopesOf(run.events.events)).toHaveLength(2);
    expect(
      calls.map((c) => [c.start.attributes, (c.end!.data as { choices: { message: { content: string } }[] }).choices[0]!.message.content]),
    ).toEqual([
      [["streaming"], "helper stream"],
      [[], '{"city":"Oslo"}'],
    ]);
  });

  it("an HTTP error: the app gets the SDK's BadRequestError, the scope ends ERROR with the status and the provider's error body", async () => {
    const body = { error: { message: "model not found", type: "invalid_request_error", code: "model_not_found" } };
    const server = await provider([
      { status: 400, body },
      { status: 400, body },
    ]);
    const run = sdkRun();
    const openai = traceOpenAI(client(server.baseUrl), { runtime: run.runtime });
    const json = await openai.chat.completions.create(ask("a")).catch((e: unknown) => e);
    const streamed = await openai.chat.completions.create({ ...ask("b"), stream: true }).catch((e: unknown) => e);
    expect(json).toBeInstanceOf(BadRequestError);
    expect(streamed).toBeInstanceOf(BadRequestError);
    const calls = await ended(run, 2);
    for (const call of calls) {
      expect(call.end).toMatchObject({
        data: { status: 400, body },
        metadata: { "otel.status_code": "ERROR", "error.type": "invalid_request", "exception.type": "BadRequestError" },
      });
      expect((call.end!.metadata as Record<string, string>)["otel.status_description"]).toContain("model not found");
    }
  });

  it("an abort before the answer: the app gets what the untraced client gives, the scope ends cancelled with the app's abort reason", async () => {
    const outcome = async (traced: boolean) => {
      const server = await provider([{ hang: true }]);
      const run = sdkRun();
      const base = client(server.baseUrl);
      const openai = traced ? traceOpenAI(base, { runtime: run.runtime }) : base;
      const controller = new AbortController();
      // Aborted once the server holds the request: the request was sent and is unanswered.
      server.onRequest = () => controller.abort(new Error("user left the page"));
      const error = await openai.chat.completions.create(ask("a"), { signal: controller.signal }).catch((e: unknown) => e);
      return { error, run };
    };
    const untraced = await outcome(false);
    const traced = await outcome(true);
    expect(untraced.error).toBeInstanceOf(APIUserAbortError);
    expect(traced.error).toBeInstanceOf(APIUserAbortError);
    expect((traced.error as Error).message).toBe((untraced.error as Error).message);
    const [call] = await ended(traced.run, 1);
    expect(call!.end!.metadata).toMatchObject({
      "otel.status_code": "ERROR",
      "otel.status_description": "user left the page",
      "error.type": "cancelled",
    });
  });

  it("a stream aborted through its controller mid-way: the app's iteration ends as the SDK ends it, the scope records what arrived, cancelled", async () => {
    const server = await provider([sseReply("openai", turn("partial answer that never finishes"), { hold: true, first: 2 })]);
    const run = sdkRun();
    const openai = traceOpenAI(client(server.baseUrl), { runtime: run.runtime });
    const stream = await openai.chat.completions.create({ ...ask("a"), stream: true });
    let text = "";
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      // The server sent two events and holds the stream open: abort once the text arrived.
      if (text !== "") stream.controller.abort();
    }
    expect(text).not.toBe("");
    expect("partial answer that never finishes".startsWith(text)).toBe(true);
    const [call] = await ended(run, 1);
    expect(call!.end!.metadata).toMatchObject({ "otel.status_code": "ERROR", "error.type": "cancelled" });
    expect(call!.end!.data).toMatchObject({ choices: [{ message: { content: text } }] });
    expect((call!.end!.metadata as Record<string, unknown>)["relaytrace.stream_incomplete"]).toEqual(expect.any(String));
  });

  it("50 concurrent calls stay apart: each scope has its own request, its own reply and its own parent", async () => {
    const server = await startScriptedProvider({
      model: MODEL,
      turns: (body) => ({ text: `echo ${(body as { messages: { content: string }[] }).messages[0]!.content}` }),
    });
    cleanups.push(() => server.close());
    const run = sdkRun();
    const openai = traceOpenAI(client(server.url), { runtime: run.runtime });
    const parents = new Map<string, string>();
    const replies = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        run.runtime.withScope(`task-${i}`, async (scope) => {
          parents.set(`q${i}`, scope.uuid);
          const reply = await openai.chat.completions.create({ ...ask(`q${i}`), stream: i % 2 === 0 });
          if ("choices" in reply) return reply.choices[0]!.message.content;
          let text = "";
          for await (const c of reply) text += c.choices[0]?.delta.content ?? "";
          return text;
        }),
      ),
    );
    expect(replies).toEqual(Array.from({ length: 50 }, (_, i) => `echo q${i}`));
    const calls = await ended(run, 50);
    for (const call of calls) {
      const question = (call.start.data as { content: { messages: { content: string }[] } }).content.messages[0]!.content;
      expect(call.start.parent_uuid).toBe(parents.get(question));
      expect(call.end!.data).toMatchObject({ choices: [{ message: { content: `echo ${question}` } }] });
    }
  });
});

describe("traceOpenAI: responses.create and embeddings.create", () => {
  it("responses.create, JSON and streamed: llm scopes under the Responses schema, the reply assembled from its events", async () => {
    const server = await startScriptedProvider({ style: "openai-responses", model: MODEL, turns: [{ text: "json" }, { text: "events" }] });
    cleanups.push(() => server.close());
    const run = sdkRun();
    const openai = traceOpenAI(client(server.url), { runtime: run.runtime });
    const json = await openai.responses.create({ model: MODEL, input: "hello" });
    expect(json.output_text).toBe("json");
    let streamed = "";
    for await (const event of await openai.responses.create({ model: MODEL, input: "hello", stream: true }))
      if (event.type === "response.output_text.delta") streamed += event.delta;
    expect(streamed).toBe("events");
    const calls = await ended(run, 2);
    expect(calls.map((c) => [c.start.name, c.start.data_schema?.name, c.end!.metadata])).toEqual([
      ["openai.responses", "openai/responses", expect.objectContaining({ "otel.status_code": "OK" })],
      ["openai.responses", "openai/responses", expect.objectContaining({ "otel.status_code": "OK" })],
    ]);
    expect(JSON.stringify(calls[1]!.end!.data)).toContain("events");
  });

  it("embeddings.create: an embedder scope with the model and usage; the vectors are recorded as their length", async () => {
    const vector = Array.from({ length: 8 }, (_, i) => i / 10);
    const server = await provider([
      {
        body: {
          object: "list",
          model: "text-embedding-3-small",
          data: [{ object: "embedding", index: 0, embedding: Buffer.from(new Float32Array(vector).buffer).toString("base64") }],
          usage: { prompt_tokens: 4, total_tokens: 4 },
        },
      },
    ]);
    const run = sdkRun();
    const openai = traceOpenAI(client(server.baseUrl), { runtime: run.runtime });
    const reply = await openai.embeddings.create({ model: "text-embedding-3-small", input: "vector me" });
    expect(reply.data[0]!.embedding).toHaveLength(8);
    const [call] = await ended(run, 1, "embedder");
    expect(call!.start).toMatchObject({ name: "openai.embeddings", category_profile: { model_name: "text-embedding-3-small" } });
    expect(call!.end!.data).toEqual({
      object: "list",
      model: "text-embedding-3-small",
      data: [{ object: "embedding", index: 0, embedding_dimensions: 8 }],
      usage: { prompt_tokens: 4, total_tokens: 4 },
    });
    const { spans } = await run.finish();
    expect(spans.find((s) => s.name === "embeddings text-embedding-3-small")?.attributes["gen_ai.usage.input_tokens"]).toBe(4);
  });
});

describe("traceOpenAI: what never reaches an event", () => {
  it("captureContent: false keeps every message out of the events; model, usage, tool names and timings remain", async () => {
    const server = await scripted([
      { toolCalls: [{ id: "call_1", name: "lookup_secret", arguments: { account: "ACCT-SECRET-991" } }] },
      { text: "The PASSWORD-ZEBRA is safe." },
    ]);
    const run = sdkRun();
    const openai = traceOpenAI(client(server.url), { runtime: run.runtime, captureContent: false });
    const request = {
      model: MODEL,
      messages: [
        { role: "system" as const, content: "SYSTEM-PROMPT-TOPSECRET" },
        { role: "user" as const, content: "What is PASSWORD-ZEBRA?" },
      ],
      tools: [{ type: "function" as const, function: { name: "lookup_secret", parameters: { type: "object", properties: {} } } }],
    };
    await openai.chat.completions.create(request);
    for await (const chunk of await openai.chat.completions.create({ ...request, stream: true })) void chunk;
    await ended(run, 2);
    const { events, spans } = await run.finish();
    const text = eventText(events) + JSON.stringify(spans.map((s) => s.attributes));
    for (const secret of ["SYSTEM-PROMPT-TOPSECRET", "PASSWORD-ZEBRA", "ACCT-SECRET-991"]) expect(text).not.toContain(secret);
    const calls = scopesOf(events);
    expect(calls[0]!.end!.data).toMatchObject({
      choices: [{ message: { tool_calls: [{ id: "call_1", function: { name: "lookup_secret" } }] } }],
      usage: { prompt_tokens: 10 },
    });
    expect(calls[0]!.start.data).toMatchObject({ content: { model: MODEL, messages: [], tools: request.tools } });
    expect(calls[1]!.end!.metadata).toMatchObject({ time_to_first_chunk_ms: expect.any(Number) });
  });

  it("the API key and Authorization never reach an event; the app's own per-call headers are recorded through the header policy", async () => {
    const server = await scripted([{ text: "ok" }]);
    const run = sdkRun();
    const openai = traceOpenAI(client(server.url), { runtime: run.runtime });
    await openai.chat.completions.create(ask("hi"), { headers: { "x-tenant": "acme", "x-request-token": "tok-PRIVATE-77" } });
    await ended(run, 1);
    const { events } = await run.finish();
    const text = eventText(events);
    expect(text).not.toContain(KEY);
    expect(text).not.toMatch(/authorization/i);
    expect(text).not.toContain("tok-PRIVATE-77");
    expect(scopesOf(events)[0]!.start.data).toMatchObject({ headers: { "x-tenant": "[redacted]", "x-request-token": "[redacted]" } });
    // The provider did get the key, and the call's trace context.
    expect(server.requests[0]!.headers["authorization"]).toBe(`Bearer ${KEY}`);
    expect(server.requests[0]!.headers["traceparent"]).toBe(
      `00-${scopesOf(events)[0]!.start.uuid.replace(/-/g, "")}-${spanIdOf(scopesOf(events)[0]!.start.uuid)}-01`,
    );
  });
});

describe("traceOpenAI: runtime, parents and wrapping", () => {
  it("without a subscriber the call is the SDK's own: no scope, no copy of the reply, no trace header", async () => {
    const server = await scripted([{ text: "untouched" }]);
    const runtime = createRuntime();
    const openai = traceOpenAI(client(server.url), { runtime });
    expect((await openai.chat.completions.create(ask("a"))).choices[0]!.message.content).toBe("untouched");
    expect(server.requests[0]!.headers["traceparent"]).toBeUndefined();
  });

  it("with no runtime given, each call records on the default runtime of that moment (set after wrapping)", async () => {
    const server = await scripted([{ text: "first" }, { text: "second" }]);
    const openai = traceOpenAI(client(server.url));
    const previous = setDefaultRuntime(undefined);
    cleanups.push(() => void setDefaultRuntime(previous));
    const first = defaultRuntime();
    const firstEvents = new EventCapture();
    firstEvents.register(first);
    await openai.chat.completions.create(ask("a"));
    const later = createRuntime();
    const laterEvents = new EventCapture();
    laterEvents.register(later);
    expect(setDefaultRuntime(later)).toBe(first);
    await openai.chat.completions.create(ask("b"));
    await first.flush();
    await later.flush();
    for (;;) {
      await later.flush();
      if (scopesOf(laterEvents.events).some((c) => c.end !== undefined)) break;
      await new Promise((r) => setImmediate(r));
    }
    expect(
      scopesOf(firstEvents.events).map(
        (c) => (c.start.data as { content: { messages: { content: string }[] } }).content.messages[0]!.content,
      ),
    ).toEqual(["a"]);
    expect(
      scopesOf(laterEvents.events).map(
        (c) => (c.start.data as { content: { messages: { content: string }[] } }).content.messages[0]!.content,
      ),
    ).toEqual(["b"]);
    expect(() => setDefaultRuntime({} as never)).toThrow(
      "setDefaultRuntime: runtime must be a Runtime (from createRuntime) or undefined (got an object)",
    );
  });

  it("outside any relaytrace scope, a call under the app's active OpenTelemetry span continues that span's trace", async () => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    cleanups.push(() => context.disable());
    const server = await scripted([{ text: "joined" }]);
    const run = sdkRun();
    const openai = traceOpenAI(client(server.url), { runtime: run.runtime });
    const tracer = new BasicTracerProvider().getTracer("app");
    const appSpan = tracer.startSpan("http GET /ask");
    await context.with(trace.setSpan(context.active(), appSpan), () => openai.chat.completions.create(ask("a")));
    appSpan.end();
    const [call] = await ended(run, 1);
    const { traceId, spanId } = appSpan.spanContext();
    // The parent stands for the app's span: the trace id's first 8 bytes and the span id.
    const hex = traceId.slice(0, 16) + spanId;
    expect(call!.start.parent_uuid).toBe(
      `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`,
    );
    expect(server.requests[0]!.headers["traceparent"]).toBe(`00-${traceId}-${spanIdOf(call!.start.uuid)}-01`);
  });

  it("wrapping twice changes nothing (one scope per call); bad options are a TypeError naming the option", async () => {
    const server = await scripted([{ text: "once" }]);
    const run = sdkRun();
    const openai = traceOpenAI(traceOpenAI(client(server.url), { runtime: run.runtime }), { runtime: run.runtime });
    await openai.chat.completions.create(ask("a"));
    expect(await ended(run, 1)).toHaveLength(1);
    expect(() => traceOpenAI(client(server.url), { captureContent: "no" as never })).toThrow(
      'traceOpenAI: captureContent must be a boolean (got "no")',
    );
    expect(() => traceOpenAI(client(server.url), { runtme: run.runtime } as never)).toThrow(/unknown option "runtme".*runtime/);
    expect(() => traceOpenAI({} as never)).toThrow("traceOpenAI: client must be an OpenAI client (new OpenAI()) (got an object)");
  });

  it("names the scope by the name option", async () => {
    const server = await scripted([{ text: "named" }]);
    const run = sdkRun();
    const openai = traceOpenAI(client(server.url), { runtime: run.runtime, name: "planner.llm" });
    await openai.chat.completions.create(ask("a"));
    expect((await ended(run, 1))[0]!.start.name).toBe("planner.llm");
  });
});

// Keeps the reply helpers honest for the dialect: a JSON reply written by the codec decodes in the SDK.
describe("test support", () => {
  it("jsonReply writes a reply the SDK reads", async () => {
    const server = await provider([jsonReply("openai", turn("from the codec"))]);
    expect((await client(server.baseUrl).chat.completions.create(ask("a"))).choices[0]!.message.content).toBe("from the codec");
  });
});
