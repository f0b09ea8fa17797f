import { afterEach, describe, expect, it } from "vitest";
import { createClient, createToolkit, defineTool } from "../../src/agent/index.js";
import type { AtofEvent } from "../../src/events/types.js";
import { createRuntime } from "../../src/runtime/runtime.js";
import { reply, startProvider } from "../support/agent-provider-server.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

describe("a tool guardrail inside the agent loop", () => {
  it("refuses the call, the model reads the refusal as the tool's error, and the run goes on", async () => {
    const provider = await startProvider([
      reply("openai", "", [{ id: "call_1", name: "wire_money", arguments: '{"amount":5000}' }]),
      reply("openai", "I could not send the money."),
    ]);
    cleanups.push(provider.close);
    const runtime = createRuntime();
    const events: AtofEvent[] = [];
    runtime.subscribe("capture", (e) => {
      events.push(e);
    });
    runtime.registerToolConditionalGuardrail("spend-limit", 10, (tool, args) =>
      tool === "wire_money" && (args as { amount: number }).amount > 1000 ? "amount over the limit" : null,
    );
    let executed = false;
    const wireMoney = defineTool({
      name: "wire_money",
      description: "sends money",
      inputSchema: { type: "object", properties: { amount: { type: "number" } }, required: ["amount"] },
      execute: () => {
        executed = true;
        return "sent";
      },
    });
    const client = createClient({ baseUrl: provider.url, style: "openai", model: "m", apiKey: "k", runtime });
    const result = await client.run("pay the invoice", { toolkit: await createToolkit({ tools: [wireMoney] }) });

    expect(executed).toBe(false);
    expect(result.status).toBe("done");
    expect(result.text).toBe("I could not send the money.");
    expect(result.toolCalls).toEqual([
      expect.objectContaining({
        id: "call_1",
        name: "wire_money",
        isError: true,
        output: 'tool call refused by guardrail "spend-limit": amount over the limit',
      }),
    ]);
    // the second provider request carries the refusal as the tool's result
    const messages = provider.requests[1]!.body.messages as { role: string; tool_call_id?: string; content?: string }[];
    expect(messages.find((m) => m.role === "tool")).toMatchObject({
      tool_call_id: "call_1",
      content: expect.stringContaining("amount over the limit"),
    });
    await runtime.flush();
    // the runtime recorded the guardrail and its rejection; no tool scope ran
    expect(events.some((e) => e.kind === "scope" && e.category === "guardrail")).toBe(true);
    expect(events.some((e) => e.kind === "scope" && e.category === "tool")).toBe(false);
  });
});
