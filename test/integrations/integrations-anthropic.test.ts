import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import Anthropic, { APIUserAbortError, NotFoundError } from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import { spanIdOf } from "relaytrace";
import { traceAnthropic } from "relaytrace/anthropic";
import { startScriptedProvider } from "relaytrace/testing";
import { ended, eventText, sdkServers, scopesOf, sdkRun, sseReply, turn } from "../support/sdk-run.js";

const MODEL = "claude-sonnet-4-5";
const KEY = "sk-ant-api03-9c1e77d0b4aa";
const { cleanups, scripted, provider } = sdkServers("anthropic", MODEL);

const client = (baseURL: string) => new Anthropic({ apiKey: KEY, baseURL, maxRetries: 0 });
const ask = (content: string) => ({ model: MODEL, max_tokens: 256, messages: [{ role: "user" as const, content }] });
type Reply1 = { content: { type: string; text?: string }[] };
const replyText = (data: unknown) => (data as Reply1).content.map((b) => b.text ?? "").join("");

describe("traceAnthropic: messages.create and messages.stream", () => {
  it("JSON: one llm scope under the app's scope with the request as sent and the reply through the Messages codec, cost and gen_ai", async () => {
    const server = await scripted([{ text: "Bonjour.", usage: { promptTokens: 2000, completionTokens: 1000 } }]);
    const run = sdkRun();
    const anthropic = traceAnthropic(client(server.url), { runtime: run.runtime });
    let parent = "";
    const message = await run.runtime.withScope("translator", (scope) => {
      parent = scope.uuid;
      return anthropic.messages.create({ ...ask("Say hello in French"), system: "You translate." });
    });
    expect(message.content).toEqual([{ type: "text", text: "Bonjour." }]);
    const { events, spans } = await run.finish();
    const [call] = scopesOf(events);
    expect(call!.start).toMatchObject({
      name: "anthropic.messages",
      parent_uuid: parent,
      data_schema: { name: "anthropic/messages", version: "1" },
      data: { content: { ...ask("Say hello in French"), system: "You translate." } },
    });
    expect(call!.end).toMatchObject({
      data: { content: [{ type: "text", text: "Bonjour." }], usage: { input_tokens: 2000, output_tokens: 1000 } },
      category_profile: { cost: { total: 0.004 } },
      metadata: { "otel.status_code": "OK" },
    });
    expect(spans.find((s) => s.name === `chat ${MODEL}`)?.attributes["gen_ai.usage.input_tokens"]).toBe(2000);
  });

  it("stream: true: the SDK's Stream iterates; the scope records the assembled message and time to first chunk", async () => {
    const server = await scripted([{ text: "Streamed bonjour", usage: { promptTokens: 8, completionTokens: 2 } }]);
    const run = sdkRun();
    const anthropic = traceAnthropic(client(server.url), { runtime: run.runtime });
    let text = "";
    for await (const event of await anthropic.messages.create({ ...ask("hi"), stream: true }))
      if (event.type === "content_block_delta" && event.delta.type === "text_delta") text += event.delta.text;
    expect(text).toBe("Streamed bonjour");
    const [call] = await ended(run, 1);
    expect(call!.start.attributes).toEqual(["streaming"]);
    expect(replyText(call!.end!.data)).toBe("Streamed bonjour");
    expect(call!.end!.data).toMatchObject({ usage: { input_tokens: 8, output_tokens: 2 } });
    expect(call!.end!.metadata).toMatchObject({ "otel.status_code": "OK", time_to_first_chunk_ms: expect.any(Number) });
  });

  it("the messages.stream() helper, which calls messages.create itself, makes one scope, and its events and final message work", async () => {
    const server = await scripted([{ text: "Helper text" }]);
    const run = sdkRun();
    const anthropic = traceAnthropic(client(server.url), { runtime: run.runtime });
    const stream = anthropic.messages.stream(ask("hi"));
    let text = "";
    stream.on("text", (delta) => (text += delta));
    const final = await stream.finalMessage();
    expect(final.content).toEqual([{ type: "text", text: "Helper text" }]);
    expect(text).toBe("Helper text");
    const calls = await ended(run, 1);
    await run.runtime.flush();
    expect(scopesOf(run.events.events)).toHaveLength(1);
    expect(replyText(calls[0]!.end!.data)).toBe("Helper text");
  });

  it("an HTTP error: the app gets the SDK's NotFoundError, the scope ends ERROR with the status and the whole error body", async () => {
    const body = { type: "error", error: { type: "not_found_error", message: "model: claude-nope" } };
    const server = await provider([{ status: 404, body }]);
    const run = sdkRun();
    const anthropic = traceAnthropic(client(server.baseUrl), { runtime: run.runtime });
    const error = await anthropic.messages.create(ask("hi")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    const [call] = await ended(run, 1);
    expect(call!.end).toMatchObject({
      data: { status: 404, body },
      metadata: { "otel.status_code": "ERROR", "error.type": "invalid_request", "exception.type": "NotFoundError" },
    });
  });

  it("a MessageStream aborted mid-way: the app gets what the untraced client gives, the scope records what arrived, cancelled", async () => {
    const outcome = async (traced: boolean) => {
      const server = await provider([sseReply("anthropic", turn("half a sentence and then nothing"), { hold: true, first: 3 })]);
      const run = sdkRun();
      const anthropic = traced ? traceAnthropic(client(server.baseUrl), { runtime: run.runtime }) : client(server.baseUrl);
      const stream = anthropic.messages.stream(ask("hi"));
      let text = "";
      // The server sent the first text and holds the stream open: abort once it arrived.
      stream.on("text", (delta) => {
        text += delta;
        stream.abort();
      });
      const error = await stream.finalMessage().catch((e: unknown) => e);
      return { error, text, run };
    };
    const untraced = await outcome(false);
    const traced = await outcome(true);
    expect(untraced.error).toBeInstanceOf(APIUserAbortError);
    expect(traced.error).toBeInstanceOf(APIUserAbortError);
    expect(traced.text).toBe(untraced.text);
    const [call] = await ended(traced.run, 1);
    expect(call!.end!.metadata).toMatchObject({ "otel.status_code": "ERROR", "error.type": "cancelled" });
    expect(replyText(call!.end!.data)).toBe(traced.text);
  });

  it("50 concurrent calls, JSON and streamed, stay apart", async () => {
    const server = await startScriptedProvider({
      style: "anthropic",
      model: MODEL,
      turns: (body) => ({ text: `re: ${(body as { messages: { content: string }[] }).messages[0]!.content}` }),
    });
    cleanups.push(() => server.close());
    const run = sdkRun();
    const anthropic = traceAnthropic(client(server.url), { runtime: run.runtime });
    const parents = new Map<string, string>();
    const texts = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        run.runtime.withScope(`task-${i}`, async (scope) => {
          parents.set(`q${i}`, scope.uuid);
          if (i % 2 === 0) return replyText(await anthropic.messages.create(ask(`q${i}`)));
          return replyText(await anthropic.messages.stream(ask(`q${i}`)).finalMessage());
        }),
      ),
    );
    expect(texts).toEqual(Array.from({ length: 50 }, (_, i) => `re: q${i}`));
    for (const call of await ended(run, 50)) {
      const question = (call.start.data as { content: { messages: { content: string }[] } }).content.messages[0]!.content;
      expect(call.start.parent_uuid).toBe(parents.get(question));
      expect(replyText(call.end!.data)).toBe(`re: ${question}`);
    }
  });
});

describe("traceAnthropic: content, credentials and the SDK's own spans", () => {
  it("captureContent: false keeps the system prompt, the messages and the reply out of every event; usage and tool names remain", async () => {
    const server = await scripted([{ toolCalls: [{ id: "toolu_1", name: "read_diary", arguments: { page: "DIARY-ENTRY-42" } }] }]);
    const run = sdkRun();
    const anthropic = traceAnthropic(client(server.url), { runtime: run.runtime, captureContent: false });
    for await (const event of await anthropic.messages.create({
      ...ask("Open my SECRET-DIARY"),
      system: "SYSTEM-TOPSECRET",
      tools: [{ name: "read_diary", input_schema: { type: "object" } }],
      stream: true,
    }))
      void event;
    await ended(run, 1);
    const { events } = await run.finish();
    const text = eventText(events);
    for (const secret of ["SECRET-DIARY", "SYSTEM-TOPSECRET", "DIARY-ENTRY-42"]) expect(text).not.toContain(secret);
    expect(scopesOf(events)[0]!.end!.data).toMatchObject({ content: [{ type: "tool_use", id: "toolu_1", name: "read_diary" }] });
  });

  it("the API key and Authorization never reach an event; the request carries the llm scope's traceparent", async () => {
    const server = await scripted([{ text: "ok" }]);
    const run = sdkRun();
    const anthropic = traceAnthropic(client(server.url), { runtime: run.runtime });
    await anthropic.messages.create(ask("hi"));
    await ended(run, 1);
    const { events } = await run.finish();
    expect(eventText(events)).not.toContain(KEY);
    expect(eventText(events)).not.toMatch(/x-api-key|authorization/i);
    // The provider did get the key (as `x-api-key` or, in newer releases, a bearer token).
    const sent = server.requests[0]!.headers;
    expect(String(sent["x-api-key"] ?? sent["authorization"])).toContain(KEY);
    const uuid = scopesOf(events)[0]!.start.uuid;
    expect(server.requests[0]!.headers["traceparent"]).toBe(`00-${uuid.replace(/-/g, "")}-${spanIdOf(uuid)}-01`);
  });

  it("with a global tracer provider the SDK's own call span is off on a traced client (no duplicate); sdkSpans: true keeps it, under the llm scope", async () => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    const memory = new InMemorySpanExporter();
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(memory)] }));
    cleanups.push(() => {
      trace.disable();
      context.disable();
    });
    const server = await scripted([{ text: "a" }, { text: "b" }, { text: "c" }]);
    const sdkSpanNames = () => memory.getFinishedSpans().map((s) => s.name);

    await client(server.url).messages.create(ask("untraced"));
    expect(sdkSpanNames()).toEqual(["anthropic.messages.create"]);
    memory.reset();

    const run = sdkRun();
    await traceAnthropic(client(server.url), { runtime: run.runtime }).messages.create(ask("traced"));
    expect(sdkSpanNames()).toEqual([]);

    await traceAnthropic(client(server.url), { runtime: run.runtime, sdkSpans: true }).messages.create(ask("both"));
    const calls = await ended(run, 2);
    const [sdkSpan] = memory.getFinishedSpans();
    expect(sdkSpan?.name).toBe("anthropic.messages.create");
    expect(sdkSpan?.parentSpanContext?.spanId).toBe(spanIdOf(calls[1]!.start.uuid));
  });
});
