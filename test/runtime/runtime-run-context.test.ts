// runtime.withContext: the session, user, tags and metadata a piece of work belongs to reach every
// event started inside it, and each projection names them; concurrent requests never mix.
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { atofToAtif } from "../../exporters/atif/index.js";
import { SpanCapture } from "../../exporters/testing/index.js";
import type { AtofEvent } from "../../src/events/types.js";
import { RelaytraceError } from "../../src/runtime/errors.js";
import { capturingRuntime } from "../support/capture.js";

const reply = { choices: [{ message: { role: "assistant", content: "hi" } }], usage: { prompt_tokens: 1, completion_tokens: 1 } };

function startsAndMarks(events: AtofEvent[]): AtofEvent[] {
  return events.filter((e) => e.kind === "mark" || e.scope_category === "start");
}

describe("withContext", () => {
  it("writes the session, user, tags and entries into every start and mark inside, across awaits; an event's own keys win", async () => {
    const { rt, settle } = capturingRuntime();
    const context = { sessionId: "chat-7", userId: "u-42", tags: ["beta"], metadata: { tenant: "acme", tier: "gold" } };
    await rt.withContext(context, () =>
      rt.withScope(
        "agent",
        async () => {
          await new Promise((resolve) => setImmediate(resolve));
          await rt.executeTool("lookup", { q: 1 }, () => ({ result: "ok" }));
          await rt.executeLlm("openai.chat_completions", { content: { messages: [] } }, async () => reply);
          rt.mark("checkpoint");
          await rt.withScope("inner", () => null, { metadata: { tier: "silver" } });
        },
        { category: "agent" },
      ),
    );
    const events = await settle();
    const marked = startsAndMarks(events);
    expect(marked.map((e) => e.name)).toEqual(["agent", "lookup", "openai.chat_completions", "checkpoint", "inner"]);
    for (const event of marked) {
      expect(event.metadata).toMatchObject({ session_id: "chat-7", user_id: "u-42", tags: ["beta"], tenant: "acme" });
    }
    expect((marked.find((e) => e.name === "inner")!.metadata as { tier: string }).tier).toBe("silver");
    expect((marked.find((e) => e.name === "agent")!.metadata as { tier: string }).tier).toBe("gold");
    // Work outside the context carries none of it.
    await rt.executeTool("outside", {}, () => ({ result: null }));
    const outside = (await settle()).find((e) => e.name === "outside")!;
    expect(outside.metadata).toBeNull();
  });

  it("nested contexts merge: the inner one wins, tags add up", async () => {
    const { rt, settle } = capturingRuntime();
    await rt.withContext({ sessionId: "outer-session", userId: "u-1", tags: ["a"], metadata: { env: "prod" } }, () =>
      rt.withContext({ sessionId: "inner-session", tags: ["b", "a"] }, () => rt.withScope("work", () => null)),
    );
    const [start] = await settle();
    expect(start!.metadata).toEqual({ env: "prod", session_id: "inner-session", user_id: "u-1", tags: ["a", "b"] });
  });

  it("keeps an own __proto__ metadata key, the scope's own and the context's, as it does outside a context", async () => {
    const { rt, settle } = capturingRuntime();
    const own = () => JSON.parse('{"__proto__": {"kept": "scope"}, "step": 1}') as Record<string, unknown>;
    const context = JSON.parse('{"__proto__": "context", "tenant": "acme"}') as Record<string, string>;
    await rt.withScope("outside", () => null, { metadata: own() });
    await rt.withContext({ sessionId: "s-1" }, async () => {
      await rt.withScope("inside", () => null, { metadata: own() });
      rt.mark("mark inside", { metadata: own() });
    });
    await rt.withContext({ metadata: context }, async () => {
      await rt.withContext({ tags: ["nested"] }, () => rt.withScope("context's", () => null));
      await rt.withScope("both", () => null, { metadata: own() });
    });
    const events = (await settle()).filter((e) => e.kind === "mark" || e.scope_category === "start");
    const metadataOf = (name: string) => events.find((e) => e.name === name)!.metadata as Record<string, unknown>;
    const protoOf = (name: string) => Object.getOwnPropertyDescriptor(metadataOf(name), "__proto__")?.value;
    expect(protoOf("outside")).toEqual({ kept: "scope" });
    expect(protoOf("inside")).toEqual({ kept: "scope" });
    expect(Object.keys(metadataOf("inside"))).toEqual(["session_id", "__proto__", "step"]);
    expect(Object.getPrototypeOf(metadataOf("inside"))).toBe(Object.prototype);
    expect(protoOf("mark inside")).toEqual({ kept: "scope" });
    expect(protoOf("context's")).toBe("context");
    // the scope's own key wins over the context's, like every other key
    expect(protoOf("both")).toEqual({ kept: "scope" });
    expect(metadataOf("both")).toMatchObject({ tenant: "acme", step: 1 });
    expect(({} as { kept?: string }).kept).toBeUndefined();
  });

  it("two concurrent requests keep their own session and user", async () => {
    const { rt, settle } = capturingRuntime();
    let entered = 0;
    let release!: () => void;
    const both = new Promise<void>((resolve) => (release = resolve));
    const request = (user: string) =>
      rt.withContext({ sessionId: `s-${user}`, userId: user }, () =>
        rt.withScope(`request ${user}`, async () => {
          if (++entered === 2) release();
          await both; // both contexts are live at once before either emits its tool call
          await rt.executeTool(`tool ${user}`, {}, () => ({ result: null }));
        }),
      );
    await Promise.all([request("alice"), request("bob")]);
    for (const event of startsAndMarks(await settle())) {
      const user = event.name.endsWith("alice") ? "alice" : "bob";
      expect(event.metadata).toMatchObject({ session_id: `s-${user}`, user_id: user });
    }
  });

  it("rejects a wrong field with an error naming it, and emits nothing", async () => {
    const { rt, settle } = capturingRuntime();
    const run = (context: unknown) => () => rt.withContext(context as never, () => rt.mark("never"));
    expect(run({ sessionId: "" })).toThrow(/withContext: sessionId must be a non-empty string/);
    expect(run({ userId: 7 })).toThrow(/userId/);
    expect(run({ tags: "a" })).toThrow(/tags must be an array of strings/);
    expect(run({ tags: ["ok", 1] })).toThrow(/tags\[1\]/);
    expect(run({ metadata: [1] })).toThrow(/metadata must be a JSON object/);
    expect(run({ session_id: "x" })).toThrow(/session_id/);
    expect(run(null)).toThrow(RelaytraceError);
    expect(await settle()).toEqual([]);
  });

  it("each projection names them on every span, and the ATIF trajectory takes the session id", async () => {
    const { rt, settle } = capturingRuntime();
    const openinference = new SpanCapture({ projection: "openinference" });
    const genAi = new SpanCapture({ projection: "gen_ai" });
    openinference.register(rt);
    genAi.register(rt);
    await rt.withContext({ sessionId: "chat-9", userId: "u-9", tags: ["eval", "beta"] }, () =>
      rt.withScope(
        "support-agent",
        async () => {
          await rt.executeTool("lookup", {}, () => ({ result: "ok" }));
          await rt.executeLlm("openai.chat_completions", { content: { messages: [] } }, async () => reply, { modelName: "m" });
        },
        { category: "agent" },
      ),
    );
    const oi: ReadableSpan[] = await openinference.spans();
    expect(oi.length).toBe(3);
    for (const span of oi) {
      expect(span.attributes["session.id"]).toBe("chat-9");
      expect(span.attributes["user.id"]).toBe("u-9");
      expect(span.attributes["tag.tags"]).toEqual(["eval", "beta"]);
    }
    const ga: ReadableSpan[] = await genAi.spans();
    expect(ga.length).toBe(3);
    for (const span of ga) {
      expect(span.attributes["gen_ai.conversation.id"]).toBe("chat-9");
      expect(span.attributes["user.id"]).toBe("u-9");
    }
    const [trajectory] = atofToAtif(await settle());
    expect(trajectory!.session_id).toBe("chat-9");
  });

  it("OpenInference's metadata JSON (what Phoenix shows) holds the context's entries and the start's keys, with the end's on top", async () => {
    const { rt } = capturingRuntime();
    const openinference = new SpanCapture({ projection: "openinference" });
    openinference.register(rt);
    await rt.withContext({ sessionId: "chat-9", metadata: { tenant: "acme" } }, () =>
      rt.withScope(
        "support-agent",
        async () => {
          await rt.executeTool("lookup", {}, () => ({ result: "ok" }), { metadata: { source: "cache" } });
          await rt.executeLlm("openai.chat_completions", { content: { messages: [] } }, async () => reply, { metadata: { tier: "fast" } });
          const phase = rt.pushScope("phase", { metadata: { stage: "planning", step: 1 } });
          rt.popScope(phase, { metadata: { stage: "done" } });
        },
        { category: "agent", metadata: { agent_version: "2" } },
      ),
    );
    const spans: ReadableSpan[] = await openinference.spans();
    const metadataOf = (name: string) => JSON.parse(String(spans.find((s) => s.name === name)!.attributes["metadata"])) as unknown;
    const context = { session_id: "chat-9", tenant: "acme", "otel.status_code": "OK" };
    expect(metadataOf("support-agent")).toEqual({ ...context, agent_version: "2" });
    expect(metadataOf("lookup")).toEqual({ ...context, source: "cache" });
    expect(metadataOf("openai.chat_completions")).toEqual({ ...context, tier: "fast" });
    // a key of both takes the end's value, as the flattened keys do
    expect(metadataOf("phase")).toEqual({ session_id: "chat-9", tenant: "acme", stage: "done", step: 1 });
    expect(spans.find((s) => s.name === "phase")!.attributes["openinference.metadata.stage"]).toBe("done");
  });
});
