import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import { AtifExporter } from "../../exporters/atif/exporter.js";
import type { AtifTrajectory } from "../../exporters/atif/types.js";
import { AtofExporter } from "../../exporters/atof/atof-exporter.js";
import { makeDirectory } from "../../exporters/files/make-directory.js";
import { OtelExporter } from "../../exporters/otel/otel-exporter.js";
import type { ProjectionName } from "../../exporters/otel/projection.js";
import { startScriptedProvider } from "../../exporters/testing/scripted-provider.js";
import type { ScriptedProvider } from "../../exporters/testing/scripted-provider.js";
import { SpanCapture } from "../../exporters/testing/span-capture.js";
import { createClient } from "../agent/client.js";
import type { Answer, Request } from "../agent/pending.js";
import { isRelayRequest, relayAnswer, relayCallsOf, relayTool } from "../agent/relay.js";
import { defineTool } from "../agent/tool.js";
import { createToolkit } from "../agent/toolkit.js";
import type { RunResult } from "../agent/types.js";
import { redactPII } from "../redact/index.js";
import { describeWriteError } from "./io.js";
import { InputError } from "./input.js";
import type { Diagnostic, ToolExecutionInterceptOutcome } from "../runtime/types.js";
import { createRuntime } from "../runtime/runtime.js";
import type { Runtime } from "../runtime/runtime.js";
import type { Dialect } from "../wire/index.js";

export const DEMO_PROMPT = "What is the weather in Oslo? Please let ada@example.com know.";

export interface LiveProvider {
  style: Dialect;
  baseUrl: string;
  model: string;
  apiKey: string;
}

export interface DemoOptions {
  outDir: string;
  projection: ProjectionName;
  /** Also send spans to this OTLP/HTTP traces endpoint. */
  otlp?: string;
  /** Use a real provider instead of the embedded scripted model. */
  live?: LiveProvider;
  /** The wire dialect the scripted model and the client speak (default "openai"). */
  style?: Dialect;
}

export interface DemoResult {
  result: RunResult;
  providerUrl: string;
  atofPath: string;
  atifPaths: string[];
  trajectories: AtifTrajectory[];
  spans: ReadableSpan[];
  diagnostics: Diagnostic[];
  /** With `otlp`: what the OTLP exporter counted (empty when every export was accepted). */
  otlpProblems?: Diagnostic[];
}

/** Diagnostics that mean spans did not reach the collector. */
const LOST = /^otel\.(export_failed|spans_not_exported|spans_dropped|flush_failed|shutdown_failed)$/;

/** The scripted model: one turn asking for both tools, then the answer. */
export function demoProvider(style: Dialect = "openai"): Promise<ScriptedProvider> {
  return startScriptedProvider({
    style,
    model: "demo-model",
    turns: [
      {
        toolCalls: [
          { id: "call_weather_1", name: "get_weather", arguments: { city: "Oslo" } },
          { id: "call_notify_1", name: "notify_customer", arguments: { email: "ada@example.com", message: "Oslo: 4 °C, light rain" } },
        ],
        usage: { promptTokens: 182, completionTokens: 41, cachedTokens: 64 },
      },
      {
        text: "It is 4 °C with light rain in Oslo. I sent the forecast to ada@example.com.",
        usage: { promptTokens: 263, completionTokens: 22 },
      },
    ],
  });
}

/** Registers the demo's intercept: the weather tool's result gets an annotation and two pending marks. */
export function registerWeatherCache(runtime: Runtime): () => boolean {
  return runtime.registerToolExecutionIntercept(
    "demo.weather-cache",
    10,
    async (args, next, info): Promise<ToolExecutionInterceptOutcome> => {
      const outcome = await next(args);
      if (info.tool !== "get_weather") return outcome;
      return {
        ...outcome,
        annotation: { cache: "miss", source: "demo-weather-service" },
        pendingMarks: [
          {
            name: "cache.lookup",
            category: "custom",
            categoryProfile: { subtype: "demo.cache" },
            data: { hit: false, key: "weather:oslo" },
            severity: "info",
          },
          { name: "audit.recorded", data: { policy: "weather-v1" } },
        ],
      };
    },
  );
}

/** The host side of the relay tool: it "delivers" each message itself. */
async function hostAnswers(request: Request): Promise<Answer> {
  if (!isRelayRequest(request)) return { id: request.id, ok: false, reason: "declined" };
  return relayAnswer(
    request.id,
    relayCallsOf(request).map((call) => ({
      id: call.id,
      output: `delivered to ${String(call.input.email ?? "customer")}`,
      isError: false,
    })),
  );
}

/** Runs the demo agent with every exporter attached and returns what it produced. */
export async function runDemo(options: DemoOptions): Promise<DemoResult> {
  try {
    makeDirectory(options.outDir);
  } catch (error) {
    throw new InputError(`cannot use ${options.outDir} for the output files: ${describeWriteError(error)}`);
  }
  const provider = options.live ? undefined : await demoProvider(options.style);
  // The scripted model's name is in no price table: unpriced, it would only add a diagnostic to the
  // first thing a newcomer runs. A live run is priced from the bundled table.
  const runtime = createRuntime(options.live ? {} : { pricing: false });
  try {
    redactPII({ mode: "mask" }).register(runtime);
    registerWeatherCache(runtime);
    const model = options.live?.model ?? "demo-model";
    const atof = new AtofExporter({ type: "file", outputDirectory: options.outDir });
    const atif = new AtifExporter({
      outputDirectory: options.outDir,
      agent: { name: "weather-agent", version: "0.1.0", modelName: model },
    });
    const capture = new SpanCapture({ projection: options.projection });
    atof.register(runtime);
    atif.register(runtime);
    capture.register(runtime);
    const otlp = options.otlp
      ? new OtelExporter({ projection: options.projection, endpoint: options.otlp, serviceName: "relaytrace-demo", timeoutMillis: 3000 })
      : undefined;
    otlp?.register(runtime);

    const weather = defineTool({
      name: "get_weather",
      description: "Current weather for a city",
      inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      execute: ({ city }) => ({ output: JSON.stringify({ city, temp_c: 4, conditions: "light rain" }), isError: false }),
    });
    const notify = relayTool("notify_customer", "Send a message to a customer; the host delivers it", {
      type: "object",
      properties: { email: { type: "string" }, message: { type: "string" } },
      required: ["email", "message"],
    });
    const toolkit = await createToolkit({ tools: [weather, notify] });
    const client = createClient({
      baseUrl: options.live?.baseUrl ?? provider!.url,
      style: options.live?.style ?? options.style ?? "openai",
      model,
      apiKey: options.live?.apiKey ?? "demo-key-not-a-secret",
      systemPrompt: "You are a concise weather assistant.",
      agentName: "weather-agent",
      runtime,
      waitFor: hostAnswers,
      retryBaseMs: 50,
    });
    const result = await client.run(DEMO_PROMPT, { toolkit });
    await runtime.shutdown();
    return {
      result,
      providerUrl: options.live?.baseUrl ?? provider!.url,
      atofPath: atof.filePath ?? "",
      atifPaths: atif.files(),
      trajectories: atif.toJSON(),
      spans: await capture.spans(),
      diagnostics: runtime.diagnostics(),
      ...(otlp ? { otlpProblems: otlp.diagnostics().filter((d) => LOST.test(d.code)) } : {}),
    };
  } finally {
    await runtime.shutdown();
    await provider?.close();
  }
}
