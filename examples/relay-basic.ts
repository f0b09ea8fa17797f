// Relay example 1: the smallest useful relay call. The model asks for `lookup`; nothing runs
// locally — the call reaches the host through `waitFor`, and the host's output becomes the tool
// result the model sees. The run finishes normally, and the trace shows the relayed call.
import assert from "node:assert/strict";
import { pathToFileURL } from "node:url";
import { createClient, createRuntime, createToolkit, isRelayRequest, relayCallsOf, relayTool, RELAY_OUTPUT_KEY } from "relaytrace";
import type { AtofEvent, Request, RunResult } from "relaytrace";
import { EventCapture, startScriptedProvider } from "relaytrace/testing";

export interface RelayBasicResult {
  result: RunResult;
  request: Request | undefined;
  events: AtofEvent[];
}

export async function main(): Promise<RelayBasicResult> {
  // A scripted OpenAI-style model on 127.0.0.1: first a tool call, then the final answer.
  const model = await startScriptedProvider({
    turns: [
      { toolCalls: [{ id: "c1", name: "lookup", arguments: '{"q":"weather"}' }], usage: { promptTokens: 4, completionTokens: 4 } },
      { text: "it is sunny", usage: { promptTokens: 4, completionTokens: 2 } },
    ],
  });
  const runtime = createRuntime();
  const capture = new EventCapture();
  capture.register(runtime);
  try {
    // Declaration only: the schema goes to the model, execution belongs to the host.
    const lookup = relayTool("lookup", "look something up", { type: "object", properties: { q: { type: "string" } } });
    const toolkit = await createToolkit({ builtins: false, tools: [lookup] });

    let got: Request | undefined;
    const client = createClient({
      baseUrl: model.url,
      style: "openai",
      model: "stub",
      apiKey: "k",
      runtime,
      // The host runs the call itself and hands back its output.
      waitFor: async (req) => {
        got = req;
        return { id: req.id, ok: true, data: { [RELAY_OUTPUT_KEY]: "sunny, 31C" } };
      },
    });

    const result = await client.run("weather?", { toolkit });
    await runtime.flush();

    // The checks the relay tool documentation makes.
    assert.equal(result.status, "done");
    assert.equal(result.text, "it is sunny");
    assert.ok(isRelayRequest(got), `expected a relay request, got kind=${got?.kind}`);
    const calls = relayCallsOf(got);
    assert.equal(calls.length, 1);
    assert.deepEqual([calls[0]!.id, calls[0]!.name, calls[0]!.input.q], ["c1", "lookup", "weather"]);
    assert.equal(result.toolCalls[0]!.output, "sunny, 31C");
    assert.equal(result.toolCalls[0]!.isError, false);

    console.log(`ok: ${result.text} - relay call was ${calls[0]!.name}(${calls[0]!.arguments})`);
    console.log(`trace: ${capture.events.map((e) => (e.kind === "mark" ? `mark ${e.name}` : `${e.scope_category} ${e.name}`)).join(", ")}`);
    return { result, request: got, events: capture.events };
  } finally {
    await runtime.shutdown();
    await model.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
