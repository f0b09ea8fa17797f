// The Worker bench/footprint.mjs bundles: a runtime, one OtelExporter to env.OTLP_ENDPOINT.
import { createRuntime } from "relaytrace";
import { OtelExporter } from "relaytrace/exporters";

let runtime;
// One runtime per isolate, made on the first request: a Worker may do no I/O at import.
function tracing(env) {
  if (runtime === undefined) {
    runtime = createRuntime();
    new OtelExporter({ projection: "gen_ai", endpoint: env.OTLP_ENDPOINT, serviceName: "worker" }).register(runtime);
  }
  return runtime;
}

export default {
  async fetch(request, env, ctx) {
    const runtime = tracing(env);
    const city = new URL(request.url).searchParams.get("city") ?? "Paris";
    try {
      const forecast = await runtime.withScope(
        "forecast",
        () => runtime.executeTool("lookup_weather", { city }, (args) => ({ result: { city: args.city, sky: "sunny" } })),
        { category: "agent", input: { city } },
      );
      return Response.json(forecast.result);
    } finally {
      ctx.waitUntil(runtime.forceFlush());
    }
  },
};
