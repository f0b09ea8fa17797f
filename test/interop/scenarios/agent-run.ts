// Interop scenario, process 1: an agent run with a pending-mark intercept, a tool that fails
// and a relay call that halts the run durably, plus a tool the app runs itself that throws.
// It then starts process 2 (agent-resume.ts), which answers the relay call and resumes the
// same trace, and prints a JSON summary.
import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createClient } from "relaytrace";
import { startScriptedProvider } from "relaytrace/testing";
import { parseScenarioOptions, scenarioRuntime } from "./options.js";
import { registerStockAudit, scenarioToolkit } from "./tools.js";

const options = parseScenarioOptions(process.argv[2]);
const model = await startScriptedProvider({
  model: "interop-model",
  turns: [
    {
      toolCalls: [
        { id: "call_stock", name: "check_stock", arguments: { sku: "sku-42" } },
        { id: "call_order", name: "lookup_order", arguments: { order: "o-1" } },
      ],
      usage: { promptTokens: 120, completionTokens: 30 },
    },
    {
      toolCalls: [{ id: "call_invoice", name: "send_invoice", arguments: { customer: "acme", amount: 120 } }],
      usage: { promptTokens: 180, completionTokens: 20 },
    },
    { text: "Invoice INV-7 sent to acme; sku-42 has 7 units.", usage: { promptTokens: 240, completionTokens: 16 } },
  ],
});
try {
  const { runtime, atif } = scenarioRuntime(options, "agent-first.jsonl");
  registerStockAudit(runtime);

  const client = createClient({
    baseUrl: model.url,
    style: "openai",
    model: "interop-model",
    apiKey: "k",
    agentName: "billing-agent",
    runtime,
  });
  const halted = await client.run("Check sku-42 and order o-1, then bill acme 120 EUR", { toolkit: await scenarioToolkit() });
  // The app also drives a tool through the runtime directly; this one fails (an errored trace).
  await runtime.withScope("reconcile-orders", async () => {
    await runtime
      .executeTool("charge_card", { customer: "acme", amount: 120 }, () => {
        throw new Error("card declined");
      })
      .catch(() => undefined);
  });
  runtime.metric("orders.checked", [
    {
      name: "relaytrace.interop.orders_checked",
      kind: "counter",
      valueType: "u64",
      value: 2,
      unit: "{order}",
      description: "orders looked at",
    },
  ]);
  await runtime.shutdown();

  const statePath = join(options.outDir, "halted.json");
  await writeFile(
    statePath,
    JSON.stringify({ modelUrl: model.url, messages: halted.messages, pending: halted.pending, halt: halted.halt }),
  );
  const worker = fileURLToPath(new URL("./agent-resume.ts", import.meta.url));
  const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", worker, process.argv[2]!, statePath], {
    cwd: process.cwd(),
  });
  const resumed = JSON.parse(stdout) as { status: string; text: string; diagnostics: unknown[] };
  console.log(
    JSON.stringify({
      first: { status: halted.status, diagnostics: runtime.diagnostics(), atif: atif.files() },
      second: resumed,
      traceparents: model.requests.map((r) => String(r.headers.traceparent ?? "")),
    }),
  );
} finally {
  await model.close();
}
