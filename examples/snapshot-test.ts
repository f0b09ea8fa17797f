// Snapshot-testing your instrumentation with `relaytrace/testing`: a test clock and sequential
// ids make the trace deterministic, `SpanCapture` projects it to OpenTelemetry spans in memory,
// `toSnapshot` turns them into stable JSON for `expect(snapshot).toMatchSnapshot()` and
// `toTree` draws them for a human. See test/examples.test.ts for the vitest side.
import { pathToFileURL } from "node:url";
import { createRuntime } from "relaytrace";
import type { Json, Runtime } from "relaytrace";
import { createSequentialIds, createTestClock, SpanCapture, toSnapshot, toTree } from "relaytrace/testing";
import type { TraceSnapshot } from "relaytrace/testing";

/** The code under test: a tiny support agent instrumented with the runtime. */
async function answerOrderQuestion(runtime: Runtime, question: string): Promise<Json> {
  return runtime.withScope(
    "support-agent",
    async () => {
      // The model is a local function here; with a real client this is the HTTP call.
      const reply = await runtime.executeLlm(
        "openai.chat_completions",
        { content: { model: "demo-model", messages: [{ role: "user", content: question }] } },
        () => ({
          model: "demo-model",
          choices: [
            {
              message: {
                role: "assistant",
                content: null,
                tool_calls: [{ id: "call_1", type: "function", function: { name: "lookup_order", arguments: '{"order_id":"A-17"}' } }],
              },
            },
          ],
          usage: { prompt_tokens: 31, completion_tokens: 9, total_tokens: 40 },
        }),
        { modelName: "demo-model" },
      );
      const order = await runtime.executeTool("lookup_order", { order_id: "A-17" }, () => ({ result: { status: "shipped" } }), {
        toolCallId: "call_1",
      });
      runtime.mark("answer.ready", { data: { order_status: "shipped" } });
      return { reply, order: order.result };
    },
    { category: "agent", metadata: { session_id: "session-42" } },
  );
}

export interface SnapshotExampleResult {
  snapshot: TraceSnapshot;
  tree: string;
}

export async function main(): Promise<SnapshotExampleResult> {
  // Every clock reading advances 250 µs; ids count up from a fixed prefix.
  const runtime = createRuntime({ clock: createTestClock({ stepUs: 250 }), idGenerator: createSequentialIds() });
  const capture = new SpanCapture({ projection: "openinference" });
  capture.register(runtime);

  await answerOrderQuestion(runtime, "Where is my order A-17?");
  await runtime.shutdown();

  const spans = await capture.spans();
  // `offsets`: times as µs since the first span start — exact, because the clock is ours.
  const snapshot = toSnapshot(spans, { times: "offsets" });
  const tree = toTree(spans);
  console.log(`captured ${spans.length} spans:`);
  console.log(tree);
  return { snapshot, tree };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
