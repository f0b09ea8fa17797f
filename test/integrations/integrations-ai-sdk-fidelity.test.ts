// traceTools never changes what a tool receives: the AI SDK hands `execute` the input its schema
// parsed (a zod schema may make Dates and Sets of the model's JSON), and the traced tool gets that
// very value; only the recorded event holds a JSON copy. The real AI SDK against a scripted
// OpenAI-compatible server on 127.0.0.1.
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, stepCountIs, tool } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createRuntime, type AtofEvent } from "relaytrace";
import { traceTools } from "relaytrace/ai-sdk";
import { startScriptedProvider, type ScriptedProvider } from "relaytrace/testing";

let provider: ScriptedProvider | undefined;
afterEach(async () => {
  await provider?.close();
  provider = undefined;
});

describe("traceTools forwards the SDK's own input", () => {
  it("a schema that parses into a Date and a Set: the tool gets them; the event records their JSON", async () => {
    provider = await startScriptedProvider({
      turns: [
        { toolCalls: [{ id: "call_1", name: "schedule", arguments: { when: "2026-03-01T10:00:00.000Z", tags: ["a", "b", "a"] } }] },
        { text: "Scheduled." },
      ],
      model: "gpt-4.1-mini",
    });
    const runtime = createRuntime();
    const events: AtofEvent[] = [];
    runtime.subscribe("capture", (e) => void events.push(e));
    const received: unknown[] = [];
    const tools = traceTools(
      {
        schedule: tool({
          description: "Schedule a meeting",
          inputSchema: z.object({ when: z.string().transform((s) => new Date(s)), tags: z.array(z.string()).transform((t) => new Set(t)) }),
          execute: async (input) => {
            received.push(input);
            return { ok: input.when instanceof Date && input.tags instanceof Set };
          },
        }),
      },
      { runtime },
    );
    const model = createOpenAICompatible({ name: "scripted", baseURL: provider.url, apiKey: "sk-test" }).chatModel("gpt-4.1-mini");
    const result = await generateText({ model, tools, stopWhen: stepCountIs(3), prompt: "Schedule it." });
    expect(result.text).toBe("Scheduled.");

    const input = received[0] as { when: unknown; tags: unknown };
    expect(input.when).toBeInstanceOf(Date);
    expect((input.when as Date).toISOString()).toBe("2026-03-01T10:00:00.000Z");
    expect(input.tags).toEqual(new Set(["a", "b"]));
    await runtime.flush();
    const start = events.find((e) => e.kind === "scope" && e.scope_category === "start" && e.name === "schedule")!;
    expect(start.data).toEqual({ when: "2026-03-01T10:00:00.000Z", tags: ["a", "b"] });
    const end = events.find((e) => e.kind === "scope" && e.scope_category === "end" && e.name === "schedule")!;
    expect(end.data).toEqual({ ok: true });
  });
});
