import { afterEach, expect, it } from "vitest";
import { AtifExporter } from "../../exporters/atif/exporter.js";
import { validateAtif } from "../../exporters/atif/validate.js";
import { startScriptedProvider } from "../../exporters/testing/scripted-provider.js";
import type { ScriptedProvider } from "../../exporters/testing/scripted-provider.js";
import { createClient } from "../../src/agent/client.js";
import { relayAnswer, relayCallsOf, relayTool } from "../../src/agent/relay.js";
import { createToolkit } from "../../src/agent/toolkit.js";
import { createRuntime } from "../../src/runtime/runtime.js";

let provider: ScriptedProvider | undefined;
afterEach(async () => provider?.close());

it("an answered relay call's observation is the host's output, with the suspension kept in extra", async () => {
  provider = await startScriptedProvider({
    turns: [{ toolCalls: [{ id: "c1", name: "lookup", arguments: { q: "weather" } }] }, { text: "it is sunny" }],
  });
  const runtime = createRuntime();
  const atif = new AtifExporter({ agent: { name: "relay-agent", version: "1.0.0" } });
  atif.register(runtime);
  const client = createClient({
    baseUrl: provider.url,
    style: "openai",
    model: "m",
    apiKey: "k",
    runtime,
    waitFor: async (req) =>
      relayAnswer(
        req.id,
        relayCallsOf(req).map((c) => ({ id: c.id, output: "sunny, 31C" })),
      ),
  });
  const result = await client.run("weather?", { toolkit: await createToolkit({ tools: [relayTool("lookup", "look something up")] }) });
  expect(result.status).toBe("done");
  await runtime.shutdown();
  const [doc] = atif.toJSON();
  expect(validateAtif(doc).valid).toBe(true);
  const step = doc!.steps.find((s) => s.tool_calls?.some((c) => c.tool_call_id === "c1"))!;
  const observation = step.observation!.results.find((r) => r.source_call_id === "c1")!;
  expect(observation.content).toBe("sunny, 31C");
  expect((observation.extra!.tool_result_annotation as { pending: { kind: string } }).pending.kind).toBe("tool_call");
  expect(step.observation!.results).toHaveLength(1);
});
