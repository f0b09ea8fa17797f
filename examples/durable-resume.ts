// A durable halt resumed in a second process, continuing the same trace.
// Process 1 runs the agent until the model calls a relay tool and no `waitFor` is configured:
// the run halts durably and we save `{messages, pending, halt}` to a JSON file. Process 2
// (durable-resume-worker.ts) loads it, answers the relay call and calls `runWithAnswer`. The
// pending request carries `data.traceContext`, so the resumed agent scope is a child of the
// halted one: both ATOF files, and the `traceparent` the model receives, share one trace id.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { createClient, createRuntime, createToolkit, relayTool } from "relaytrace";
import type { RunResult } from "relaytrace";
import { AtofExporter } from "relaytrace/exporters";
import { startScriptedProvider } from "relaytrace/testing";

export interface DurableResumeResult {
  halted: RunResult;
  statePath: string;
  firstAtofPath: string;
  secondAtofPath: string;
  /** What the worker wrote: the resumed run's status and text. */
  resumed: { status: string; text: string };
  /** The W3C `traceparent` header of each model request (first process, then the worker). */
  traceparents: string[];
}

// The worker declares the same relay tool: a resumed run needs the same toolkit.
const sendInvoice = relayTool("send_invoice", "Send an invoice; the billing system does it", {
  type: "object",
  properties: { customer: { type: "string" }, amount: { type: "number" } },
  required: ["customer", "amount"],
});

export async function main(): Promise<DurableResumeResult> {
  const dir = await mkdtemp(join(tmpdir(), "relaytrace-durable-"));
  // One scripted model serves both processes: turn 1 asks for the relay call, turn 2 answers.
  const model = await startScriptedProvider({
    turns: [
      { toolCalls: [{ id: "call_inv", name: "send_invoice", arguments: { customer: "acme", amount: 120 } }] },
      { text: "Invoice INV-7 sent to acme." },
    ],
  });
  try {
    const runtime = createRuntime();
    const atof = new AtofExporter({ type: "file", outputDirectory: dir, path: "first.jsonl", mode: "overwrite" });
    atof.register(runtime);
    const toolkit = await createToolkit({ builtins: false, tools: [sendInvoice] });
    const client = createClient({ baseUrl: model.url, style: "openai", model: "stub", apiKey: "k", runtime });
    const halted = await client.run("Bill acme 120 EUR", { toolkit });
    await runtime.shutdown();
    console.log(`process 1: run ${halted.status} — ${halted.text}`);

    // Everything the resume needs is plain JSON: store it anywhere (a queue, a database…).
    const statePath = join(dir, "halted.json");
    const state = { modelUrl: model.url, messages: halted.messages, pending: halted.pending, halt: halted.halt };
    await writeFile(statePath, JSON.stringify(state, null, 2));

    // Process 2: a fresh Node process with its own runtime.
    const worker = fileURLToPath(new URL("./durable-resume-worker.ts", import.meta.url));
    const repoRoot = fileURLToPath(new URL("..", import.meta.url)); // so `--import tsx` resolves
    const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", worker, statePath], { cwd: repoRoot });
    console.log(stdout.trimEnd());
    const resumed = JSON.parse(await readFile(join(dir, "resumed.json"), "utf8")) as { status: string; text: string };

    const traceparents = model.requests.map((r) => String(r.headers.traceparent ?? ""));
    console.log(`trace ids seen by the model: ${traceparents.map((t) => t.split("-")[1]).join(" and ")}`);
    console.log(`ATOF files: ${join(dir, "first.jsonl")} and ${join(dir, "second.jsonl")}`);
    return { halted, statePath, firstAtofPath: join(dir, "first.jsonl"), secondAtofPath: join(dir, "second.jsonl"), resumed, traceparents };
  } finally {
    await model.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
