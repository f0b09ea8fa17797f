// An OpenAI Agents SDK (`@openai/agents-core` 0.14 to 0.20) run traced by relaytrace: `RelaytraceProcessor`
// turns the SDK's trace and spans (agents, model calls, tool calls, a handoff) into relaytrace
// scopes and marks, written here as an ATIF trajectory. The model is the scripted
// OpenAI-compatible server on 127.0.0.1.
import { pathToFileURL } from "node:url";
import { Agent, Runner, getGlobalTraceProvider, setTraceProcessors, tool } from "@openai/agents-core";
import { OpenAIChatCompletionsModel } from "@openai/agents-openai";
import OpenAI from "openai";
import { z } from "zod";
import { createRuntime, type AtofEvent } from "relaytrace";
import { atofToAtif, type AtifTrajectory } from "relaytrace/exporters";
import { RelaytraceProcessor } from "relaytrace/openai-agents";
import { EventCapture, startScriptedProvider } from "relaytrace/testing";

export interface OpenAiAgentsExampleResult {
  output: unknown;
  events: AtofEvent[];
  trajectories: AtifTrajectory[];
}

export async function main(): Promise<OpenAiAgentsExampleResult> {
  const server = await startScriptedProvider({
    model: "gpt-4.1-mini",
    turns: [
      { toolCalls: [{ id: "call_1", name: "transfer_to_billing", arguments: {} }] },
      {
        toolCalls: [{ id: "call_2", name: "invoice_status", arguments: { invoice: "INV-7" } }],
        usage: { promptTokens: 60, completionTokens: 9, cachedTokens: 48 },
      },
      { text: "Invoice INV-7 was paid on 1 March." },
    ],
  });
  const runtime = createRuntime();
  const capture = new EventCapture();
  capture.register(runtime);
  const processor = new RelaytraceProcessor({ runtime });
  setTraceProcessors([processor]);
  // The SDK switches tracing off when NODE_ENV is "test"; this program wants it on regardless.
  getGlobalTraceProvider().setDisabled(false);

  const client = new OpenAI({ baseURL: server.url, apiKey: "sk-example" });
  const model = new OpenAIChatCompletionsModel(client, "gpt-4.1-mini");
  const invoiceStatus = tool({
    name: "invoice_status",
    description: "Payment status of an invoice",
    parameters: z.object({ invoice: z.string() }),
    execute: async ({ invoice }) => ({ invoice, status: "paid", paid_on: "2026-03-01" }),
  });
  const billing = new Agent({ name: "billing", instructions: "Answer invoice questions.", model, tools: [invoiceStatus] });
  const triage = new Agent({ name: "triage", instructions: "Route the customer.", model, handoffs: [billing] });

  try {
    const result = await new Runner().run(triage, "Was invoice INV-7 paid?");
    await processor.shutdown();
    const events = capture.events;
    const trajectories = atofToAtif(events, { agent: { name: "support", version: "1.0.0" } });
    console.log(result.finalOutput);
    for (const t of trajectories) console.log(`${t.agent.name}: ${t.steps.length} steps`);
    return { output: result.finalOutput, events, trajectories };
  } finally {
    setTraceProcessors([]);
    await runtime.shutdown();
    await server.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
