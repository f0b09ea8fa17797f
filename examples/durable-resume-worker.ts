// The second process of durable-resume.ts:
//   node --import tsx examples/durable-resume-worker.ts <halted.json>
// It loads the halted run, answers the relay call as the "billing system" would, and resumes.
import { readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { createClient, createRuntime, createToolkit, relayAnswer, relayCallsOf, relayTool } from "relaytrace";
import type { HaltRecord, Request, RunResult } from "relaytrace";
import { AtofExporter } from "relaytrace/exporters";

interface HaltedState {
  modelUrl: string;
  messages: unknown[];
  pending: Request;
  halt: HaltRecord;
}

// Declared exactly as in the first process.
const sendInvoice = relayTool("send_invoice", "Send an invoice; the billing system does it", {
  type: "object",
  properties: { customer: { type: "string" }, amount: { type: "number" } },
  required: ["customer", "amount"],
});

export async function main(statePath: string): Promise<RunResult> {
  const state = JSON.parse(await readFile(statePath, "utf8")) as HaltedState;
  const dir = dirname(statePath);
  const runtime = createRuntime();
  new AtofExporter({ type: "file", outputDirectory: dir, path: "second.jsonl", mode: "overwrite" }).register(runtime);

  // The host does the relayed work itself and reports one result per call.
  const calls = relayCallsOf(state.pending);
  const answer = relayAnswer(
    state.pending.id,
    calls.map((call) => ({
      id: call.id,
      output: `invoice INV-7 for ${String(call.input.customer)}: ${String(call.input.amount)} EUR`,
      isError: false,
    })),
  );

  const toolkit = await createToolkit({ builtins: false, tools: [sendInvoice] });
  const client = createClient({ baseUrl: state.modelUrl, style: "openai", model: "stub", apiKey: "k", runtime });
  // `pending.data.traceContext` (captured at the halt) makes this run continue the halted trace.
  const resumed = await client.runWithAnswer({ toolkit, history: state.messages, pending: state.pending, answer, halt: state.halt });
  await runtime.shutdown();

  await writeFile(join(dir, "resumed.json"), JSON.stringify({ status: resumed.status, text: resumed.text }));
  console.log(`process 2 (pid ${process.pid}): answered ${calls.length} relay call(s); run ${resumed.status} — ${resumed.text}`);
  return resumed;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const statePath = process.argv[2];
  if (!statePath) {
    console.error("usage: node --import tsx examples/durable-resume-worker.ts <halted.json>");
    process.exitCode = 2;
  } else {
    await main(statePath);
  }
}
