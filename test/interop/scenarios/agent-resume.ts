// Interop scenario, process 2: loads the halted run, answers the relay call and resumes it;
// the pending request's trace context makes this process continue the first one's trace.
import { readFile } from "node:fs/promises";
import { createClient, createRuntime, relayAnswer, relayCallsOf } from "relaytrace";
import type { HaltRecord, Request } from "relaytrace";
import { AtifExporter, AtofExporter, OtelExporter } from "relaytrace/exporters";
import { otelOptions, parseScenarioOptions } from "./options.js";
import { registerStockAudit, scenarioToolkit } from "./tools.js";

const options = parseScenarioOptions(process.argv[2]);
const state = JSON.parse(await readFile(process.argv[3]!, "utf8")) as { modelUrl: string; messages: unknown[]; pending: Request; halt: HaltRecord };
const runtime = createRuntime();
registerStockAudit(runtime);
new AtofExporter({ type: "file", outputDirectory: options.outDir, path: "agent-second.jsonl", mode: "overwrite" }).register(runtime);
const atif = new AtifExporter({ outputDirectory: options.outDir, agent: { name: "billing-agent", version: "1.0.0", modelName: "interop-model" } });
atif.register(runtime);
const otel = otelOptions(options);
if (otel) new OtelExporter(otel).register(runtime);

const answer = relayAnswer(
  state.pending.id,
  relayCallsOf(state.pending).map((call) => ({ id: call.id, output: `invoice INV-7 for ${String(call.input.customer)}`, isError: false })),
);
const client = createClient({ baseUrl: state.modelUrl, style: "openai", model: "interop-model", apiKey: "k", agentName: "billing-agent", runtime });
const resumed = await client.runWithAnswer({ toolkit: await scenarioToolkit(), history: state.messages as never, pending: state.pending, answer, halt: state.halt });
await runtime.shutdown();
console.log(JSON.stringify({ status: resumed.status, text: resumed.text, diagnostics: runtime.diagnostics(), atif: atif.files() }));
