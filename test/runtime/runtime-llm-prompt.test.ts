// An LLM call may name the prompt template it was made from: the start records it, each projection
// names it, the ATIF step carries it, and content capture off withholds the template and values.
import { describe, expect, it } from "vitest";
import { atofToAtif } from "../../exporters/atif/index.js";
import { SpanCapture } from "../../exporters/testing/index.js";
import type { ScopeEvent } from "../../src/events/types.js";
import { capturingRuntime } from "../support/capture.js";

const reply = {
  choices: [{ message: { role: "assistant", content: "It ships Monday." } }],
  usage: { prompt_tokens: 3, completion_tokens: 4 },
};
const prompt = { name: "order-status", version: "3", template: "Where is order {order}?", variables: { order: 5 } };

async function callWithPrompt(capture?: { captureContent?: boolean }) {
  const { rt, settle } = capturingRuntime();
  const spans = (["openinference", "gen_ai", "full"] as const).map((projection) => {
    const c = new SpanCapture({ projection, ...capture });
    c.register(rt);
    return c;
  });
  await rt.withScope(
    "agent",
    () =>
      rt.executeLlm(
        "openai.chat_completions",
        { content: { model: "gpt-test", messages: [{ role: "user", content: "Where is order 5?" }] } },
        async () => reply,
        { prompt, modelName: "gpt-test" },
      ),
    { category: "agent" },
  );
  const [openinference, genAi, full] = await Promise.all(
    spans.map(async (c) => (await c.spans()).find((s) => s.name.includes("chat") || s.name.includes("openai"))!),
  );
  return { events: await settle(), openinference: openinference!, genAi: genAi!, full: full! };
}

describe("an LLM call's prompt", () => {
  it("is on the start's profile, in each projection's names and on the ATIF agent step", async () => {
    const { events, openinference, genAi, full } = await callWithPrompt();
    const start = events.find((e): e is ScopeEvent => e.kind === "scope" && e.category === "llm" && e.scope_category === "start")!;
    expect(start.category_profile).toEqual({ model_name: "gpt-test", prompt });
    expect(openinference.attributes).toMatchObject({
      "llm.prompt_template.template": "Where is order {order}?",
      "llm.prompt_template.variables": '{"order":5}',
      "llm.prompt_template.version": "3",
    });
    expect(genAi.attributes["gen_ai.prompt.name"]).toBe("order-status");
    expect(full.attributes["gen_ai.prompt.name"]).toBe("order-status");
    const [trajectory] = atofToAtif(events);
    const step = trajectory!.steps.find((s) => s.source === "agent")!;
    expect(step.extra?.["prompt"]).toEqual(prompt);
  });

  it("with content capture off keeps the name and version, never the template or the values", async () => {
    const { openinference, genAi, full } = await callWithPrompt({ captureContent: false });
    expect(openinference.attributes["llm.prompt_template.version"]).toBe("3");
    for (const span of [openinference, genAi, full]) {
      const text = JSON.stringify(span.attributes);
      expect(text).not.toContain("Where is order {order}");
      expect(text).not.toContain('{"order":5}');
    }
    expect(genAi.attributes["gen_ai.prompt.name"]).toBe("order-status");
  });

  it("rejects a malformed prompt with an error naming the field, and the call records nothing", async () => {
    const { rt, settle } = capturingRuntime();
    const call = (p: unknown) => rt.executeLlm("openai.chat_completions", { content: {} }, async () => reply, { prompt: p as never });
    await expect(call({ version: "1" })).rejects.toThrow(/prompt.name must be a non-empty string/);
    await expect(call({ name: "x", variables: [1] })).rejects.toThrow(/prompt.variables must be a JSON object/);
    await expect(call({ name: "x", text: "t" })).rejects.toThrow(/text/);
    expect(await settle()).toEqual([]);
  });
});
