import { afterEach, describe, expect, it } from "vitest";
import { startScriptedProvider } from "../../exporters/testing/scripted-provider.js";
import type { ScriptedProvider } from "../../exporters/testing/scripted-provider.js";
import { createClient } from "../../src/agent/client.js";
import { defineTool } from "../../src/agent/tool.js";
import { createToolkit } from "../../src/agent/toolkit.js";
import type { ScopeEvent } from "../../src/events/types.js";
import { capturingRuntime } from "../support/capture.js";

let provider: ScriptedProvider | undefined;
afterEach(async () => provider?.close());

describe("loop tools returning { result, annotation }", () => {
  it("send only the result to the model and put the annotation on the tool end event", async () => {
    provider = await startScriptedProvider({
      turns: [{ toolCalls: [{ id: "call_1", name: "lookup", arguments: { q: "oslo" } }] }, { text: "done" }],
    });
    const { rt, settle } = capturingRuntime();
    const lookup = defineTool({
      name: "lookup",
      description: "look something up",
      inputSchema: { type: "object", properties: { q: { type: "string" } } },
      execute: () => ({ result: { temp_c: 4 }, annotation: { cache: "hit", rank: 1 } }),
    });
    const client = createClient({ baseUrl: provider.url, style: "openai", model: "m", apiKey: "k", runtime: rt });
    const result = await client.run("weather?", { toolkit: await createToolkit({ tools: [lookup] }) });
    expect(result.toolCalls[0]!.output).toBe('{"temp_c":4}');
    const toolMessage = (provider.requests[1]!.body as { messages: { role: string; content: string }[] }).messages.find(
      (m) => m.role === "tool",
    )!;
    expect(toolMessage.content).toBe('{"temp_c":4}');
    expect(JSON.stringify(provider.requests[1]!.body)).not.toContain("cache");
    const end = (await settle()).find((e): e is ScopeEvent => e.kind === "scope" && e.category === "tool" && e.scope_category === "end")!;
    expect(end.category_profile).toEqual({ tool_call_id: "call_1", tool_result_annotation: { cache: "hit", rank: 1 } });
    expect(end.data).toEqual({ output: '{"temp_c":4}', isError: false });
  });
});
