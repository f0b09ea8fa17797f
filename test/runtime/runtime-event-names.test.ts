import { describe, expect, it } from "vitest";
import { createClient, createToolkit } from "../../src/agent/index.js";
import { redactPII } from "../../src/redact/index.js";
import { EventCapture, SpanCapture } from "../../exporters/testing/index.js";
import { createRuntime } from "../../src/runtime/runtime.js";
import { capturingRuntime, labels } from "../support/capture.js";
import { scriptedProviders } from "../support/scripted-providers.js";

describe("event names pass the sanitizers", () => {
  const provider = scriptedProviders();

  it("a tool name the model made up passes redactPII before it reaches any event or span name", async () => {
    const p = await provider([{ toolCalls: [{ id: "c1", name: "forward_to_ada@example.com", arguments: {} }] }, { text: "done" }]);
    const runtime = createRuntime();
    redactPII().register(runtime);
    const events = new EventCapture();
    const spans = new SpanCapture({ projection: "full" });
    events.register(runtime);
    spans.register(runtime);
    const client = createClient({ baseUrl: p.url, style: "openai", model: "m", apiKey: "k", runtime });
    const res = await client.run("go", { toolkit: await createToolkit() });
    expect(res.toolCalls[0]!.name).toBe("forward_to_ada@example.com"); // the app still gets what the model said
    await runtime.flush();
    const names = [...events.events.map((e) => e.name), ...(await spans.spans()).map((s) => s.name)];
    // The whole name is an address (`_` is valid in its local part), so all of it is masked.
    expect(names.filter((n) => n.includes("REDACTED"))).toEqual(["[REDACTED:email]", "[REDACTED:email]", "[REDACTED:email]"]);
    expect(JSON.stringify(names)).not.toContain("ada@example.com");
    await runtime.shutdown();
  });

  it("name sanitizers run in priority order on scopes and marks; a throwing one fails closed", async () => {
    const { rt, settle } = capturingRuntime();
    rt.registerEventNameSanitizer("lower", 1, (name) => name.toLowerCase());
    rt.registerEventNameSanitizer("prefix", 2, (name, event) => `${event.kind}:${name}`);
    await rt.withScope("Plan", () => rt.mark("Thinking"));
    expect((await settle()).map((e) => e.name)).toEqual(["scope:plan", "mark:thinking", "scope:plan"]);

    const broken = capturingRuntime();
    broken.rt.registerEventNameSanitizer("broken", 1, () => {
      throw new Error("no names today");
    });
    await broken.rt.executeTool("secret_tool", {}, () => ({ result: 1 }));
    expect(labels(await broken.settle())).toEqual(["start:tool:[redacted]", "end:tool:[redacted]"]);
    expect(broken.rt.getLastCallbackError()).toMatchObject({ name: "broken", message: "no names today" });
  });
});
