// The oldest Agents SDK the peer range admits: `agents-014` is `@openai/agents` 0.14.3 (core, openai and its `openai` 6),
// installed beside the 0.20 the other tests use. Its own file, so the two SDKs' tracing globals never meet.
import { Agent, OpenAIProvider, Runner, getGlobalTraceProvider, setTraceProcessors, tool } from "agents-014";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { RelaytraceProcessor } from "relaytrace/openai-agents";
import { startScriptedProvider, type ScriptedProvider } from "relaytrace/testing";
import { ends, integrationRun, scopesOf, starts } from "../support/integration-run.js";

let provider: ScriptedProvider | undefined;
beforeAll(() => getGlobalTraceProvider().setDisabled(false));
afterAll(() => {
  setTraceProcessors([]);
  getGlobalTraceProvider().setDisabled(true);
});
afterEach(async () => {
  await provider?.close();
  provider = undefined;
});

const getWeather = tool({
  name: "get_weather",
  description: "Current weather of a city",
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, temp_c: 4 }),
});

describe("relaytrace/openai-agents with @openai/agents 0.14.3, the oldest supported", () => {
  for (const api of ["chat", "responses"] as const) {
    it(`${api}: the task, agent, turn, model and function spans become scopes, the tool scope with the model's call id`, async () => {
      provider = await startScriptedProvider({
        ...(api === "responses" ? { style: "openai-responses" as const } : {}),
        model: "gpt-4.1-mini",
        turns: [
          {
            toolCalls: [{ id: "call_o", name: "get_weather", arguments: { city: "Oslo" } }],
            usage: { promptTokens: 40, completionTokens: 12 },
          },
          { text: "Oslo is at 4 °C.", usage: { promptTokens: 75, completionTokens: 10 } },
        ],
      });
      const run = integrationRun();
      const processor = new RelaytraceProcessor({ runtime: run.runtime });
      // The processor is typed against the 0.20 declarations: 0.14's are the same shapes, but its classes are other classes.
      setTraceProcessors([processor as unknown as Parameters<typeof setTraceProcessors>[0][number]]);
      const modelProvider = new OpenAIProvider({ baseURL: provider.url, apiKey: "sk-test-key", useResponses: api === "responses" });
      const agent = new Agent({ name: "weather-agent", instructions: "Be brief.", model: "gpt-4.1-mini", tools: [getWeather] });
      const result = await new Runner({ modelProvider }).run(agent, "Weather in Oslo?");
      expect(result.finalOutput).toBe("Oslo is at 4 °C.");
      await processor.forceFlush();
      const { events, trajectories } = await run.finish();
      expect(processor.failureCount()).toBe(0);

      const byUuid = new Map(scopesOf(events).map((e) => [e.uuid, e]));
      const parentName = (e: { parent_uuid: string | null }) => (e.parent_uuid ? byUuid.get(e.parent_uuid)?.name : undefined);
      const llmStarts = starts(events, "llm");
      expect(llmStarts.map((e) => e.name)).toEqual(
        api === "chat" ? ["openai.chat_completions", "openai.chat_completions"] : ["openai.responses", "openai.responses"],
      );
      expect(llmStarts.map(parentName)).toEqual(["turn 1", "turn 2"]);
      expect(starts(events, "agent").map((e) => [e.name, parentName(e)])).toEqual([["weather-agent", "Agent workflow"]]);
      expect(starts(events, "function").find((e) => e.name === "turn 1")?.metadata).toMatchObject({ "openai_agents.span_type": "turn" });
      expect(ends(events, "llm").map((e) => e.category_profile)).toEqual([
        { model_name: "gpt-4.1-mini", cost: expect.objectContaining({ currency: "USD", model: "gpt-4.1-mini", provider: "openai" }) },
        { model_name: "gpt-4.1-mini", cost: expect.objectContaining({ currency: "USD", model: "gpt-4.1-mini", provider: "openai" }) },
      ]);
      expect(ends(events, "tool").map((e) => [e.name, e.category_profile?.["tool_call_id"], e.data])).toEqual([
        ["get_weather", "call_o", { city: "Oslo", temp_c: 4 }],
      ]);
      const steps = trajectories[0]!.steps;
      expect(steps.map((x) => x.source)).toEqual(["user", "agent", "agent"]);
      expect(steps[1]!.tool_calls?.map((c) => c.tool_call_id)).toEqual(["call_o"]);
      expect(steps[1]!.metrics).toMatchObject({ prompt_tokens: 40, completion_tokens: 12 });
    });
  }
});
