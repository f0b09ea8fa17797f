// Interop scenario, process 2: loads the halted run, answers the relay call and resumes it;
// the pending request's trace context makes this process continue the first one's trace.
import { readFile } from "node:fs/promises";
import { createClient, relayAnswer, relayCallsOf } from "relaytrace";
import type { HaltRecord, Request } from "relaytrace";
import { parseScenarioOptions, scenarioRuntime } from "./options.js";
import { registerStockAudit, scenarioToolkit } from "./tools.js";

const options = parseScenarioOptions(process.argv[2]);
const state = JSON.parse(await readFile(process.argv[3]!, "utf8")) as {
  modelUrl: string;
  messages: unknown[];
  pending: Request;
  halt: HaltRecord;
};
const { runtime, atif } = scenarioRuntime(options, "agent-second.jsonl");
registerStockAudit(runtime);

const answer = relayAnswer(
  state.pending.id,
  relayCallsOf(state.pending).map((call) => ({ id: call.id, output: `invoice INV-7 for ${String(call.input.customer)}`, isError: false })),
);
const client = createClient({
  baseUrl: state.modelUrl,
  style: "openai",
  model: "interop-model",
  apiKey: "k",
  agentName: "billing-agent",
  runtime,
});
const resumed = await client.runWithAnswer({
  toolkit: await scenarioToolkit(),
  history: state.messages as never,
  pending: state.pending,
  answer,
  halt: state.halt,
});
await runtime.shutdown();
console.log(JSON.stringify({ status: resumed.status, text: resumed.text, diagnostics: runtime.diagnostics(), atif: atif.files() }));
