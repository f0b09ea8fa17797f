// A Worker that imports only "relaytrace" and "relaytrace/exporters" (run by
// test/runtimes/workers.mjs on workerd): its bundle holds neither the price table nor the logs and
// metrics SDKs. It turns logs and metrics on and makes one model call the table would price; GET /
// answers with the call's cost and the runtime's diagnostics once forceFlush has delivered the
// spans to env.OTLP_URL.
import { createRuntime } from "relaytrace";
import { OtelExporter } from "relaytrace/exporters";

let runtime;
const costs = [];

function tracing(env) {
  if (runtime === undefined) {
    runtime = createRuntime();
    new OtelExporter({
      projection: "gen_ai",
      protocol: "http/json",
      endpoint: `${env.OTLP_URL}/${env.NAME}/v1/traces`,
      serviceName: env.NAME,
      logs: true,
      metrics: true,
    }).register(runtime);
    runtime.subscribe("costs", (e) => {
      if (e.kind === "scope" && e.category === "llm" && e.scope_category === "end") costs.push(e.category_profile?.cost?.total ?? null);
    });
  }
  return runtime;
}

// What a Chat Completions reply carries that the table prices: a model and the usage.
const REPLY = {
  model: "gpt-4.1-mini",
  choices: [{ index: 0, message: { role: "assistant", content: "hi" }, finish_reason: "stop" }],
  usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
};

export default {
  async fetch(_request, env) {
    const rt = tracing(env);
    await rt.withScope(
      "answer",
      async () => {
        rt.mark("checkpoint");
        await rt.executeLlm("openai.chat.completions", { content: { model: "gpt-4.1-mini", messages: [] } }, async () => REPLY);
      },
      { category: "agent" },
    );
    await rt.forceFlush();
    return Response.json({ costs, diagnostics: rt.diagnostics() });
  },
};
