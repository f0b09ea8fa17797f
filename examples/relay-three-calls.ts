// Relay example 2: three relay calls in one assistant turn ride ONE suspension, in call order.
// With no `waitFor` the run halts durably: every relay call of the turn is folded into the
// first surfaced request, so the host never sees a truncated call list.
import assert from "node:assert/strict";
import { pathToFileURL } from "node:url";
import { createClient, createRuntime, createToolkit, relayCallsOf, relayTool } from "relaytrace";
import type { RelayCall, RunResult } from "relaytrace";
import { startScriptedProvider } from "relaytrace/testing";

export interface RelayThreeCallsResult {
  result: RunResult;
  calls: RelayCall[];
  /** How many model requests the run made (one: it halts before a second turn). */
  modelRequests: number;
}

export async function main(): Promise<RelayThreeCallsResult> {
  const model = await startScriptedProvider({
    turns: [
      {
        toolCalls: [
          { id: "c1", name: "alpha", arguments: "{}" },
          { id: "c2", name: "beta", arguments: "{}" },
          { id: "c3", name: "gamma", arguments: "{}" },
        ],
        usage: { promptTokens: 4, completionTokens: 4 },
      },
    ],
  });
  const runtime = createRuntime();
  try {
    const relay = (name: string) => relayTool(name, "relayed to the caller");
    const toolkit = await createToolkit({ builtins: false, tools: [relay("alpha"), relay("beta"), relay("gamma")] });

    // No waitFor: the run halts durably and returns the surfaced request in `result.pending`.
    const client = createClient({ baseUrl: model.url, style: "openai", model: "stub", apiKey: "k", runtime });
    const result = await client.run("go", { toolkit });

    assert.equal(result.status, "pending", "expected a durable halt");
    assert.ok(result.pending);
    const calls = relayCallsOf(result.pending);
    assert.equal(calls.length, 3, "all 3 relay calls on ONE surfaced request");
    assert.deepEqual(
      calls.map((c) => c.name),
      ["alpha", "beta", "gamma"],
      "tool-call order preserved",
    );

    console.log(`ok: ${calls.length} relay calls rode one suspension, in order: ${calls.map((c) => c.name).join(" ")}`);
    console.log(`the halted run is resumable: pending request ${result.pending.id} (kind ${result.pending.kind})`);
    return { result, calls, modelRequests: model.requests.length };
  } finally {
    await runtime.shutdown();
    await model.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
