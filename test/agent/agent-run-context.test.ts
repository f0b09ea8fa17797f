// The loop takes a run's session, user, tags and metadata per call (`context`): every event of the
// run carries them, as `runtime.withContext` gives them; a wrong field rejects the call.
import { afterEach, describe, expect, it } from "vitest";
import { startScriptedProvider, type ScriptedProvider } from "../../exporters/testing/scripted-provider.js";
import { createClient } from "../../src/agent/client.js";
import { defineTool } from "../../src/agent/tool.js";
import { createToolkit } from "../../src/agent/toolkit.js";
import { capturingRuntime } from "../support/capture.js";

let provider: ScriptedProvider | undefined;
afterEach(async () => provider?.close());

const lookup = defineTool({ name: "lookup", description: "look up", execute: () => "sunny" });

describe("a loop run's context", () => {
  it("puts the session, user and tags on the agent scope, every model call and every tool call", async () => {
    provider = await startScriptedProvider({
      turns: [{ toolCalls: [{ id: "call_1", name: "lookup", arguments: {} }] }, { text: "It is sunny." }],
    });
    const { rt, settle } = capturingRuntime();
    const client = createClient({ baseUrl: provider.url, style: "openai", model: "m", apiKey: "k", runtime: rt });
    const context = { sessionId: "chat-3", userId: "u-8", tags: ["web"] };
    const result = await client.run("weather?", { toolkit: await createToolkit({ tools: [lookup] }), context });
    expect(result.text).toBe("It is sunny.");
    const starts = (await settle()).filter((e) => e.kind === "scope" && e.scope_category === "start");
    expect(starts.map((e) => e.category)).toEqual(["agent", "llm", "tool", "llm"]);
    for (const start of starts) expect(start.metadata).toMatchObject({ session_id: "chat-3", user_id: "u-8", tags: ["web"] });
  });

  it("rejects a run whose context has a wrong field, naming it, before any model call", async () => {
    provider = await startScriptedProvider({ turns: [{ text: "never" }] });
    const { rt, settle } = capturingRuntime();
    const client = createClient({ baseUrl: provider.url, style: "openai", model: "m", apiKey: "k", runtime: rt });
    await expect(client.run("hi", { context: { userId: "" } })).rejects.toThrow(/userId/);
    expect(provider.requests).toHaveLength(0);
    expect(await settle()).toEqual([]);
  });
});
