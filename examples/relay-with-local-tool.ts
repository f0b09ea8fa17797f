// Relay example 3: a real tool runs locally alongside a relay tool, and a declined relay call does
// not abort the run — it becomes an error tool result and the loop continues.
import assert from "node:assert/strict";
import { pathToFileURL } from "node:url";
import { createClient, createRuntime, createToolkit, defineTool, relayTool } from "relaytrace";
import type { AtofEvent, RunResult } from "relaytrace";
import { EventCapture, startScriptedProvider } from "relaytrace/testing";

export interface RelayWithLocalToolResult {
  result: RunResult;
  realRan: boolean;
  events: AtofEvent[];
}

export async function main(): Promise<RelayWithLocalToolResult> {
  const usage = { promptTokens: 2, completionTokens: 2 };
  const model = await startScriptedProvider({
    turns: [
      { toolCalls: [{ id: "c1", name: "real_tool", arguments: "{}" }], usage },
      { toolCalls: [{ id: "c2", name: "relayed_tool", arguments: "{}" }], usage },
      { text: "handled the decline", usage },
    ],
  });
  const runtime = createRuntime();
  const capture = new EventCapture();
  capture.register(runtime);
  try {
    let realRan = false;
    const real = defineTool({
      name: "real_tool",
      description: "runs locally",
      inputSchema: { type: "object", properties: {} },
      execute: () => {
        realRan = true;
        return { output: "real-output", isError: false };
      },
    });
    const relayed = relayTool("relayed_tool", "runs at the host");
    const toolkit = await createToolkit({ builtins: false, tools: [real, relayed] });

    const client = createClient({
      baseUrl: model.url,
      style: "openai",
      model: "stub",
      apiKey: "k",
      runtime,
      // The host declines the relayed call; the run must carry on.
      waitFor: async (req) => ({ id: req.id, ok: false, reason: "declined" }),
    });
    const result = await client.run("do both", { toolkit });
    await runtime.flush();

    assert.ok(realRan, "expected the ordinary tool to actually run");
    assert.equal(result.status, "done", "a declined relay must not abort the run");

    console.log(`ok: real tool ran locally, relay decline was handled without aborting: ${result.text}`);
    for (const call of result.toolCalls) console.log(`  ${call.name} -> ${call.output}${call.isError ? " (error result)" : ""}`);
    return { result, realRan, events: capture.events };
  } finally {
    await runtime.shutdown();
    await model.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
