import type { Runtime } from "../../src/runtime/runtime.js";

/** One agent scope with a tool call, on the real runtime, into whatever is registered. */
export async function runSampleAgent(runtime: Runtime): Promise<void> {
  await runtime.withScope(
    "sample-agent",
    async () => {
      await runtime.executeTool("add", { a: 1, b: 2 }, async () => ({ result: { output: "3", isError: false } }), { toolCallId: "call_1" });
      runtime.mark("sample.checkpoint", { data: { ok: true } });
    },
    { category: "agent" },
  );
  await runtime.flush();
}
