import { createRuntime } from "../../src/runtime/runtime.js";
import type { AtofEvent } from "../../src/events/types.js";
import { createClient, createToolkit, defineTool, pending } from "../../src/agent/index.js";
import { reply, startProvider } from "./agent-provider-server.js";

/** The events of real loop runs on one runtime, against a loopback provider. */
export interface RecordedRuns {
  events: AtofEvent[];
  close(): Promise<void>;
}

/**
 * An outer agent whose `delegate` tool runs an inner agent (`researcher`) to completion, then
 * answers: one trajectory with one embedded subagent.
 */
export async function runWithSubagent(): Promise<RecordedRuns> {
  const srv = await startProvider((req) => {
    const messages = req.body.messages as { role: string; content: string }[];
    const prompt = messages.find((m) => m.role === "user")!.content;
    if (prompt !== "outer") return reply("openai", "inner finding");
    if (!messages.some((m) => m.role === "tool"))
      return reply("openai", "", [{ id: "call_sub", name: "delegate", arguments: '{"topic":"tides"}' }]);
    return reply("openai", "outer done");
  });
  const runtime = createRuntime();
  const events: AtofEvent[] = [];
  runtime.subscribe("capture", (e) => void events.push(e));
  const inner = createClient({ baseUrl: srv.url, style: "openai", model: "m", apiKey: "k", runtime, agentName: "researcher" });
  const delegate = defineTool({
    name: "delegate",
    description: "ask the researcher",
    execute: async () => (await inner.run("inner")).text,
  });
  const outer = createClient({ baseUrl: srv.url, style: "openai", model: "m", apiKey: "k", runtime, agentName: "planner" });
  await outer.run("outer", { toolkit: await createToolkit({ tools: [delegate] }) });
  await runtime.flush();
  return { events, close: srv.close };
}

/** A run that halts on an approval, then its durable resume (`runWithAnswer`): two top-level agent scopes. */
export async function runHaltedAndResumed(): Promise<RecordedRuns> {
  const srv = await startProvider([
    reply("openai", "", [{ id: "call_ok", name: "approve", arguments: '{"what":"deploy"}' }]),
    reply("openai", "deployed"),
  ]);
  const runtime = createRuntime();
  const events: AtofEvent[] = [];
  runtime.subscribe("capture", (e) => void events.push(e));
  const approve = defineTool({
    name: "approve",
    description: "",
    execute: (_a, ctx) => (ctx.answer ? "approved" : pending({ kind: "approval", prompt: "deploy?" })),
  });
  const toolkit = await createToolkit({ tools: [approve] });
  const client = createClient({ baseUrl: srv.url, style: "openai", model: "m", apiKey: "k", runtime, agentName: "deployer" });
  const halted = await client.run("deploy it", { toolkit });
  const answer = { id: halted.pending!.id, ok: true };
  await client.runWithAnswer({ toolkit, history: halted.messages, pending: halted.pending!, answer, halt: halted.halt! });
  await runtime.flush();
  return { events, close: srv.close };
}
