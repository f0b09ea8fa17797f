import { appendFile } from "node:fs/promises";
import { createClient, createToolkit, relayTool } from "../../src/agent/index.js";
import { serializeEvent } from "../../src/events/atof-serialize.js";
import type { AtofEvent } from "../../src/events/types.js";
import { startScriptedProvider, type ScriptedTurn } from "../../exporters/testing/scripted-provider.js";
import { capturingRuntime } from "./capture.js";
import { weatherTool } from "./recorded-run.js";

/** What one recorded agent run of the dashboard's tests looks like. */
export interface AgentRunSpec {
  prompt?: string;
  /** The weather tool's answer (`temp_c` in its result). */
  temp?: number;
  sessionId?: string;
  userId?: string;
  tags?: string[];
  /** ok: asks the weather and answers; error: the provider fails; suspended: a relay tool halts the run. */
  outcome?: "ok" | "error" | "suspended";
  /** Scores the run's LLM call after it ended. */
  evaluation?: { name: string; score?: number; label?: string };
  /** The agent's name (default weather-agent). */
  agentName?: string;
}

/** Prices for the scripted model, so the runs carry a cost. */
const PRICING = {
  entries: [{ model: "m-1", inputPerMTok: 2, outputPerMTok: 8, pricingAsOf: "2026-11-01", pricingSource: "test prices" }],
};

function turnsOf(spec: AgentRunSpec): ScriptedTurn[] {
  if (spec.outcome === "error") return [{ status: 500, body: { error: { message: "the model is down" } } }];
  if (spec.outcome === "suspended")
    return [
      {
        toolCalls: [{ id: "call_r", name: "notify_customer", arguments: { text: "hello" } }],
        usage: { promptTokens: 40, completionTokens: 6 },
      },
    ];
  return [
    { toolCalls: [{ id: "call_1", name: "get_weather", arguments: { city: "Oslo" } }], usage: { promptTokens: 50, completionTokens: 9 } },
    { text: `Oslo: ${spec.temp ?? 4} °C.`, usage: { promptTokens: 70, completionTokens: 5 } },
  ];
}

/**
 * One run of the real agent loop against a scripted provider on 127.0.0.1, inside the spec's
 * run context (session, user, tags) and with its outcome: the events an ATOF file holds.
 */
export async function recordAgentRun(spec: AgentRunSpec = {}): Promise<AtofEvent[]> {
  const provider = await startScriptedProvider({ style: "openai", turns: turnsOf(spec), model: "m-1" });
  try {
    const { rt, settle } = capturingRuntime({ pricing: PRICING });
    const client = createClient({
      baseUrl: provider.url,
      style: "openai",
      model: "m-1",
      apiKey: "k",
      runtime: rt,
      retries: 0,
      agentName: spec.agentName ?? "weather-agent",
    });
    const tools =
      spec.outcome === "suspended"
        ? [relayTool("notify_customer", "Send a message; the host delivers it")]
        : [weatherTool({ count: 0 }, spec.temp ?? 4)];
    const toolkit = await createToolkit({ tools });
    const context = {
      ...(spec.sessionId !== undefined ? { sessionId: spec.sessionId } : {}),
      ...(spec.userId !== undefined ? { userId: spec.userId } : {}),
      ...(spec.tags !== undefined ? { tags: spec.tags } : {}),
    };
    await rt.withContext(context, () => client.run(spec.prompt ?? "Weather in Oslo?", { toolkit }).catch(() => undefined));
    if (spec.evaluation) {
      const llm = (await settle()).find((e) => e.kind === "scope" && e.category === "llm");
      rt.recordEvaluation({ ...spec.evaluation, target: { uuid: llm!.uuid } });
    }
    const events = [...(await settle())];
    await rt.shutdown();
    return events;
  } finally {
    await provider.close();
  }
}

/** Appends runs' events to an ATOF file (created when missing), one line per event. */
export async function appendRuns(path: string, ...runs: readonly AtofEvent[][]): Promise<void> {
  await appendFile(path, runs.flatMap((events) => events.map((e) => serializeEvent(e) + "\n")).join(""));
}
