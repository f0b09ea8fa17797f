// A Cloudflare Worker traced with relaytrace (run by test/runtimes/workers.mjs on workerd). Each
// request opens an "agent" scope with a "lookup" tool call inside, and hands runtime.forceFlush()
// to ctx.waitUntil so the spans reach the OTLP receiver (env.OTLP_URL) after the reply is sent,
// and the ATOF events its /atof path.
// GET /agent runs the agent loop against the model server at env.MODEL_URL instead; GET /flushed
// awaits runtime.forceFlush() itself and then asks the receiver which span names it holds.
// env.RUNTIME says where the runtime lives: "isolate" (made on the first request, kept for every
// later one) or "request" (a new one for each request); env.NAME names the spans' service and the
// receiver's paths.
// It opts in to what a Worker bundle holds only on request: the bundled price table (its model
// calls are priced) and the logs and metrics signals (marks as log records, the GenAI metrics).
import "relaytrace/prices";
import "relaytrace/exporters/signals";
import { createClient, createRuntime, createToolkit, defineTool } from "relaytrace";
import { AtofExporter, OtelExporter } from "relaytrace/exporters";

let isolateRuntime;

function newRuntime(env) {
  const runtime = createRuntime();
  new OtelExporter({
    projection: "full",
    protocol: env.OTLP_PROTOCOL,
    endpoint: `${env.OTLP_URL}/${env.NAME}/v1/traces`,
    serviceName: env.NAME,
    logs: true,
    metrics: true,
  }).register(runtime);
  new AtofExporter({ type: "stream", url: `${env.OTLP_URL}/${env.NAME}/atof` }).register(runtime);
  return runtime;
}

/** The isolate's runtime is made on its first request: nothing runs at import on Workers. */
function tracing(env) {
  if (env.RUNTIME === "request") return newRuntime(env);
  isolateRuntime ??= newRuntime(env);
  return isolateRuntime;
}

const add = defineTool({
  name: "add",
  description: "Add two numbers",
  inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
  execute: ({ a, b }) => String(a + b),
});

async function lookup(runtime, request) {
  const id = new URL(request.url).searchParams.get("id");
  return runtime.withScope(
    "agent",
    async (scope) => {
      const tool = await runtime.executeTool("lookup", { id }, (args) => ({ result: { found: args.id } }));
      // pushScope/popScope without enterWith: the scope is the current one until popped.
      const step = runtime.pushScope("step", { category: "function" });
      runtime.mark("checkpoint");
      runtime.popScope(step);
      return { id, scope: scope.uuid, found: tool.result.found };
    },
    { category: "agent", input: { id } },
  );
}

async function agent(runtime, env) {
  const client = createClient({ baseUrl: env.MODEL_URL, style: "openai", model: "gpt-4.1-mini", apiKey: "sk-demo", runtime });
  const result = await client.run("What is 3 + 4?", { toolkit: await createToolkit({ tools: [add] }) });
  return { status: result.status, text: result.text, tools: result.toolCalls.map((c) => [c.name, c.output]) };
}

/** Delivery, seen from the Worker: once forceFlush resolves, the receiver already holds the span. */
async function flushed(runtime, env, request) {
  const name = `flushed-${new URL(request.url).searchParams.get("id")}`;
  await runtime.withScope(name, () => runtime.executeTool("lookup", {}, () => ({ result: null })), { category: "agent" });
  await runtime.forceFlush();
  const names = await (await fetch(`${env.OTLP_URL}/${env.NAME}/names`)).json();
  return { name, received: names.includes(name), diagnostics: runtime.diagnostics() };
}

function route(runtime, env, request) {
  const path = new URL(request.url).pathname;
  if (path === "/agent") return agent(runtime, env);
  if (path === "/flushed") return flushed(runtime, env, request);
  return lookup(runtime, request);
}

export default {
  async fetch(request, env, ctx) {
    const runtime = tracing(env);
    try {
      return Response.json(await route(runtime, env, request));
    } catch (error) {
      return Response.json({ error: String(error && error.stack ? error.stack : error) }, { status: 500 });
    } finally {
      ctx.waitUntil(runtime.forceFlush());
    }
  },
};
