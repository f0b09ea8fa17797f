// The first priced call of a fresh process: it loads the bundled price table (synchronously, on
// Node). Prints one JSON line: import time, the first and the second priced call, and the heap the
// table added (after a full gc when --expose-gc is given).
const t0 = performance.now();
const { createRuntime } = await import("../../dist/src/index.js");
const importMs = performance.now() - t0;
const runtime = createRuntime();
runtime.subscribe("noop", () => {});
const body = {
  id: "r",
  model: "gpt-4o-mini-2024-07-18",
  choices: [{ index: 0, message: { role: "assistant", content: "done" }, finish_reason: "stop" }],
  usage: { prompt_tokens: 2000, completion_tokens: 300, total_tokens: 2300 },
};
const request = { content: { model: "gpt-4o-mini", messages: [] } };
const heap = () => {
  globalThis.gc?.();
  return process.memoryUsage().heapUsed;
};
// One unpriced call first, so the runtime's own first-call work is not counted as the table's.
await runtime.executeLlm("openai.chat_completions", request, () => ({ choices: [] }));
const before = heap();
let t = performance.now();
await runtime.executeLlm("openai.chat_completions", request, () => body);
const firstMs = performance.now() - t;
t = performance.now();
await runtime.executeLlm("openai.chat_completions", request, () => body);
const secondMs = performance.now() - t;
const heapDeltaBytes = heap() - before;
await runtime.shutdown();
console.log(JSON.stringify({ importMs, firstMs, secondMs, heapDeltaBytes }));
