// What the provider SDK wrapper tests share: a runtime that records events, gen_ai spans and cost,
// the llm calls read back from its events, and provider replies (JSON bodies and server-sent
// event chunks) written by the dialects' own codecs for the loopback servers to send.
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { createRuntime, type AtofEvent, type Runtime, type ScopeEvent } from "relaytrace";
import { atofToAtif, type AtifTrajectory } from "relaytrace/exporters";
import { afterEach } from "vitest";
import { EventCapture, SpanCapture, startScriptedProvider, type ScriptedProvider } from "relaytrace/testing";
import { codecForDialect, type Dialect, type WirePart, type WireResponse } from "../../src/wire/index.js";
import { sse, startProvider, type FakeProvider, type Reply } from "./providers-server.js";

/** A catalog that prices the models the tests use: $1 per million input tokens, $2 per million output. */
export const TEST_PRICES = {
  entries: ["gpt-4.1-mini", "claude-sonnet-4-5", "gemini-2.5-flash"].map((model) => ({
    model,
    inputPerMTok: 1,
    outputPerMTok: 2,
    pricingAsOf: "2026-01-01",
    pricingSource: "test",
  })),
};

export interface SdkRun {
  runtime: Runtime;
  events: EventCapture;
  /** Flushes, then every event, the gen_ai spans and the ATIF trajectories. */
  finish(): Promise<{ events: AtofEvent[]; spans: ReadableSpan[]; trajectories: AtifTrajectory[] }>;
}

export function sdkRun(): SdkRun {
  const runtime = createRuntime({ pricing: TEST_PRICES });
  const events = new EventCapture();
  events.register(runtime);
  const spans = new SpanCapture({ projection: "gen_ai" });
  spans.register(runtime);
  return {
    runtime,
    events,
    async finish() {
      await runtime.flush();
      const all = events.events;
      return { events: all, spans: await spans.spans(), trajectories: atofToAtif(all, { agent: { name: "sdk-app", version: "1.0.0" } }) };
    },
  };
}

/** One recorded scope: its start and its end (undefined while it is open). */
export interface RecordedScope {
  start: ScopeEvent;
  end: ScopeEvent | undefined;
}

/** The scopes of `category` in start order, each with its end. */
export function scopesOf(events: readonly AtofEvent[], category = "llm"): RecordedScope[] {
  const scopes = events.filter((e): e is ScopeEvent => e.kind === "scope" && e.category === category);
  return scopes
    .filter((e) => e.scope_category === "start")
    .map((start) => ({ start, end: scopes.find((e) => e.scope_category === "end" && e.uuid === start.uuid) }));
}

/** Waits (without sleeping) until `n` scopes of `category` have ended. */
export async function ended(run: SdkRun, n: number, category = "llm"): Promise<RecordedScope[]> {
  for (;;) {
    await run.runtime.flush();
    const scopes = scopesOf(run.events.events, category);
    if (scopes.filter((s) => s.end !== undefined).length >= n) return scopes;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** A model turn as a decoded reply: text, tool calls and usage. */
export function turn(
  text: string,
  options: {
    model?: string;
    toolCalls?: { id: string; name: string; arguments: Record<string, unknown> }[];
    input?: number;
    output?: number;
  } = {},
): WireResponse {
  const parts: WirePart[] = text === "" ? [] : [{ type: "text", text }];
  for (const c of options.toolCalls ?? [])
    parts.push({
      type: "tool_call",
      call: { id: c.id, name: c.name, arguments: JSON.stringify(c.arguments), input: c.arguments as never },
    });
  const input = options.input ?? 12;
  const output = options.output ?? 5;
  return {
    id: "reply-1",
    model: options.model ?? "test-model",
    parts,
    text,
    toolCalls: parts.flatMap((p) => (p.type === "tool_call" ? [p.call] : [])),
    finish: options.toolCalls?.length ? "tool_calls" : "stop",
    usage: { inputTokens: input, outputTokens: output, totalTokens: input + output },
  };
}

/** The dialect's JSON reply to a non-streamed request. */
export function jsonReply(dialect: Dialect, response: WireResponse): Reply {
  return { body: codecForDialect(dialect).encodeResponse(response) };
}

/** The dialect's server-sent events for a streamed request; `hold` keeps the stream open after them. */
export function sseReply(dialect: Dialect, response: WireResponse, options: { hold?: boolean; first?: number } = {}): Reply {
  const events = codecForDialect(dialect).encodeStream(response);
  const chunks = events.map((e) => sse(e.data, e.event));
  return options.hold ? { chunks: chunks.slice(0, options.first ?? 2), hold: true } : { chunks };
}

/** Every event as JSON text: what any exporter, file or subscriber could see. */
export function eventText(events: readonly AtofEvent[]): string {
  return JSON.stringify(events);
}

type ScriptedOptions = Parameters<typeof startScriptedProvider>[0];

/**
 * The loopback servers one SDK test file starts, each closed after its test (in reverse order):
 * the scripted model of the file's dialect, a raw provider, and `cleanups` for anything else a
 * test opens.
 */
export function sdkServers(style: ScriptedOptions["style"], model: string) {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return {
    cleanups,
    async scripted(turns: ScriptedOptions["turns"]): Promise<ScriptedProvider> {
      const server = await startScriptedProvider({ ...(style === undefined ? {} : { style }), turns, model });
      cleanups.push(() => server.close());
      return server;
    },
    async provider(replies: Reply[]): Promise<FakeProvider> {
      const server = await startProvider(replies);
      cleanups.push(() => server.close());
      return server;
    },
  };
}
