// Records when the bundled price table is loaded while the built package is imported and used,
// and prints one JSON line: after which step the table's module was first loaded, and the cost the
// priced call carried. Every module load goes through a synchronous loader hook.
//   node test/runtime/price-table-probe.mjs
import { registerHooks } from "node:module";
import { createServer } from "node:http";

const loaded = [];
registerHooks({
  load(url, context, nextLoad) {
    if (url.includes("@pydantic/genai-prices")) loaded.push(url);
    return nextLoad(url, context);
  },
});

const steps = {};
const mark = (step) => (steps[step] = loaded.length > 0);

const { createRuntime } = await import("../../dist/src/index.js");
mark("import");
const runtime = createRuntime();
const events = [];
runtime.subscribe("capture", (e) => void events.push(e));
mark("createRuntime");
await runtime.withScope("agent", () => runtime.executeTool("lookup", { id: 1 }, () => ({ result: "found" })), { category: "agent" });
// A model call whose reply has no usage: nothing to price.
await runtime.executeLlm("openai.chat.completions", { content: { model: "gpt-4o-mini", messages: [] } }, () => ({ choices: [] }));
mark("unpriced work");

const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        model: "gpt-4o-mini-2024-07-18",
        choices: [{ index: 0, message: { role: "assistant", content: "hi" }, finish_reason: "stop" }],
        usage: { prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100 },
      }),
    );
  });
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${server.address().port}/v1/chat/completions`;
const body = { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] };
await runtime.executeLlm("openai.chat.completions", { content: body }, async (request) => {
  const res = await fetch(url, { method: "POST", body: JSON.stringify(request.content) });
  return res.json();
});
mark("priced call");
server.close();
await runtime.flush();
const cost = events
  .filter((e) => e.kind === "scope" && e.category === "llm" && e.scope_category === "end")
  .map((e) => e.category_profile?.cost?.total);
console.log(JSON.stringify({ steps, loads: loaded.length, cost, diagnostics: runtime.diagnostics() }));
await runtime.shutdown();
