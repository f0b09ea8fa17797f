// An execution intercept wraps every managed tool call. This one times a cache lookup around the
// real tool, attaches an annotation to the result (recorded on the tool's end event as
// `category_profile.tool_result_annotation`) and queues pending marks, which the runtime emits
// right after the tool ends — and only if it succeeded. The marks are telemetry only; the app
// receives `{result, annotation}` from `executeTool`.
import { pathToFileURL } from "node:url";
import { createRuntime, serializeEvent } from "relaytrace";
import type { AtofEvent, Json, ToolExecutionInterceptOutcome, ToolExecutionResult } from "relaytrace";
import { EventCapture } from "relaytrace/testing";

export interface InterceptAnnotationResult {
  /** What the application received from `executeTool`. */
  appResult: ToolExecutionResult;
  events: AtofEvent[];
  /** The same events as ATOF JSON lines. */
  lines: string[];
}

/** The tool itself: a managed tool callback returns `{ result }`. */
function getWeather(args: Json): ToolExecutionResult {
  const city = typeof args === "object" && args !== null && !Array.isArray(args) ? (args.city ?? null) : null;
  return { result: { city, temp_c: 4 } };
}

export async function main(): Promise<InterceptAnnotationResult> {
  const runtime = createRuntime();
  const capture = new EventCapture();
  capture.register(runtime);

  // Priority 10; `next` runs the inner intercepts and finally the tool itself.
  runtime.registerToolExecutionIntercept("weather-cache", 10, async (args, next, info): Promise<ToolExecutionInterceptOutcome> => {
    const outcome = await next(args);
    if (info.tool !== "get_weather") return outcome;
    return {
      ...outcome,
      annotation: { cache: "miss", source: "weather-service" },
      // camelCase in TypeScript; they reach the wire as snake_case ATOF fields.
      pendingMarks: [
        {
          name: "cache.lookup",
          category: "custom",
          categoryProfile: { subtype: "example.cache" },
          data: { hit: false, key: "weather:oslo" },
        },
        { name: "audit.recorded", data: { policy: "weather-v1" }, severity: "info" },
      ],
    };
  });

  let appResult: ToolExecutionResult = { result: null };
  await runtime.withScope(
    "weather-agent",
    async () => {
      appResult = await runtime.executeTool("get_weather", { city: "Oslo" }, getWeather, { toolCallId: "call_1" });
    },
    { category: "agent" },
  );
  await runtime.shutdown();

  const events = capture.events;
  const lines = events.map((e) => serializeEvent(e));
  console.log(`the app received ${JSON.stringify(appResult)}`);
  console.log("ATOF events (one JSON line each):");
  for (const line of lines) console.log(`  ${line}`);
  return { appResult, events, lines };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
