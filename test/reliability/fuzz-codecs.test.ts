import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { anthropicCodec, openaiCodec, parseSse, ProviderError } from "../../src/agent/providers/index.js";
import type { ParsedTurn, ProviderCodec, SseEvent } from "../../src/agent/providers/index.js";

const CODECS: ProviderCodec[] = [openaiCodec, anthropicCodec];

/** Either a well-formed turn or a ProviderError with a message — never a TypeError from inside the codec. */
function checkTurn(turn: ParsedTurn): void {
  expect(typeof turn.text).toBe("string");
  expect(Array.isArray(turn.toolCalls)).toBe(true);
  for (const call of turn.toolCalls) {
    expect(typeof call.id).toBe("string");
    expect(typeof call.name).toBe("string");
    expect(typeof call.args).toBe("object");
  }
  expect(Number.isFinite(turn.usage.totalTokens)).toBe(true);
}

function expectProviderError(error: unknown): void {
  if (!(error instanceof ProviderError)) throw error;
  expect(error.message.length).toBeGreaterThan(0);
}

async function* iterate<T>(items: T[]): AsyncGenerator<T> {
  for (const item of items) yield item;
}

async function drainStream(codec: ProviderCodec, events: SseEvent[]): Promise<void> {
  const gen = codec.parseStream(iterate(events));
  try {
    for (;;) {
      const step = await gen.next();
      if (step.done) {
        checkTurn(step.value);
        return;
      }
    }
  } catch (error) {
    expectProviderError(error);
  }
}

// Replies shaped roughly like the real thing, with any field swapped for junk: the fuzzer then reaches past the first check.
const junk = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constant(undefined));
const openAiReply = fc.record(
  {
    model: junk,
    usage: fc.oneof(junk, fc.record({ prompt_tokens: junk, completion_tokens: junk, total_tokens: junk })),
    choices: fc.oneof(
      junk,
      fc.array(
        fc.record({
          finish_reason: fc.oneof(junk, fc.constantFrom("stop", "tool_calls", "length")),
          message: fc.oneof(
            junk,
            fc.record({
              content: junk,
              tool_calls: fc.oneof(
                junk,
                fc.array(fc.record({ id: junk, type: junk, function: fc.oneof(junk, fc.record({ name: junk, arguments: junk })) }), {
                  maxLength: 3,
                }),
              ),
            }),
          ),
        }),
        { maxLength: 2 },
      ),
    ),
  },
  { requiredKeys: [] },
);
const anthropicReply = fc.record(
  {
    model: junk,
    stop_reason: fc.oneof(junk, fc.constantFrom("end_turn", "tool_use", "max_tokens")),
    usage: fc.oneof(junk, fc.record({ input_tokens: junk, output_tokens: junk })),
    content: fc.oneof(
      junk,
      fc.array(
        fc.oneof(
          fc.record({ type: fc.constant("text"), text: junk }),
          fc.record({ type: fc.constant("tool_use"), id: junk, name: junk, input: junk }),
          fc.jsonValue({ maxDepth: 2 }),
        ),
        { maxLength: 3 },
      ),
    ),
  },
  { requiredKeys: [] },
);

describe("fuzz: provider codecs", () => {
  it("parseResponse turns any reply into a turn or a ProviderError", () => {
    fc.assert(
      fc.property(fc.oneof(fc.anything({ maxDepth: 3 }), openAiReply, anthropicReply), (body) => {
        for (const codec of CODECS) {
          try {
            checkTurn(codec.parseResponse(body));
          } catch (error) {
            expectProviderError(error);
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  it("parseStream turns any SSE event sequence (junk data, truncation, bad JSON) into a turn or a ProviderError", async () => {
    const dataText = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.constant("[DONE]"),
      openAiReply.map((v) => JSON.stringify(v) ?? ""),
      fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
      fc
        .record({
          type: fc.constantFrom(
            "message_start",
            "content_block_start",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop",
            "error",
          ),
          index: junk,
          delta: junk,
          content_block: junk,
          message: junk,
        })
        .map((v) => JSON.stringify(v)),
    );
    const event = fc
      .record({
        event: fc.option(fc.constantFrom("message_start", "content_block_delta", "message_stop", "error", "ping"), { nil: undefined }),
        data: dataText,
      })
      .map((e) => (e.event === undefined ? { data: e.data } : { event: e.event, data: e.data }));
    await fc.assert(
      fc.asyncProperty(fc.array(event, { maxLength: 8 }), async (events) => {
        for (const codec of CODECS) await drainStream(codec, events);
      }),
      { numRuns: 300 },
    );
  });

  it("parseSse never throws on arbitrary bytes split at arbitrary points", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.uint8Array({ maxLength: 64 }), { maxLength: 6 }),
        fc.array(fc.string({ maxLength: 30 }), { maxLength: 4 }),
        async (bytes, strings) => {
          const out: SseEvent[] = [];
          for await (const e of parseSse(iterate<Uint8Array | string>([...bytes, ...strings]))) out.push(e);
          for (const e of out) expect(typeof e.data).toBe("string");
        },
      ),
      { numRuns: 300 },
    );
  });

  it("a tool call whose arguments are not JSON parses to {} and keeps the raw text for the error path", () => {
    const turn = openaiCodec.parseResponse({
      choices: [
        {
          finish_reason: "tool_calls",
          message: { content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "add", arguments: '{"a": 1,' } }] },
        },
      ],
    });
    expect(turn.toolCalls[0]).toMatchObject({ id: "c1", name: "add", args: {}, arguments: '{"a": 1,' });
  });
});
