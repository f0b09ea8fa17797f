import type { Json, JsonObject } from "../events/json.js";
import { postJson, postStream } from "./providers/index.js";
import type { ParsedTurn } from "./providers/types.js";
import { emitMetric, type RunContext } from "./loop-context.js";

function endpointMetadata(url: string, turn: number): JsonObject {
  try {
    const u = new URL(url);
    const port = u.port ? Number(u.port) : u.protocol === "https:" ? 443 : 80;
    return { turn, server_address: u.hostname, server_port: port };
  } catch {
    return { turn };
  }
}

function requestHeaders(run: RunContext): Record<string, string> {
  const { codec, apiKey, headers } = run.settings;
  // Caller headers override the loop's own.
  return { "content-type": "application/json", ...codec.authHeaders(apiKey), ...headers };
}

function stringHeaders(headers: Record<string, Json> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers ?? {})) if (v !== null && v !== undefined) out[k] = String(v);
  return out;
}

function retryMark(run: RunContext, llmUuid: string) {
  return (info: { attempt: number; status?: number; error?: unknown; delayMs: number }) => {
    const data: JsonObject = { attempt: info.attempt, delayMs: info.delayMs };
    if (info.status !== undefined) data.status = info.status;
    if (info.error !== undefined) data.error = info.error instanceof Error ? info.error.message : String(info.error);
    run.settings.runtime.mark("llm.retry", { parent: { uuid: llmUuid }, data });
  };
}

function llmMetric(run: RunContext, turn: number, started: number, parsed: ParsedTurn | undefined): void {
  emitMetric(run.settings, {
    event: "llm",
    model: run.settings.model,
    status: parsed ? "ok" : "error",
    ms: Date.now() - started,
    promptTokens: parsed?.usage.promptTokens ?? 0,
    completionTokens: parsed?.usage.completionTokens ?? 0,
    runUuid: run.runUuid,
    turn,
  });
}

/** One provider call (all retries inside) as one managed `llm` scope. Returns the parsed turn and the raw JSON. */
export async function callLlm(run: RunContext, body: JsonObject, turn: number): Promise<{ parsed: ParsedTurn; raw: Json }> {
  const { settings } = run;
  const url = settings.codec.url(settings.baseUrl, settings.model, false);
  const started = Date.now();
  let parsed: ParsedTurn | undefined;
  try {
    const raw = await settings.runtime.executeLlm(
      settings.codec.route,
      { headers: requestHeaders(run), content: body },
      async (request, ctx) => {
        // The request the runtime hands back is the real one (credentials intact, traceparent added).
        const res = await postJson(transportOptions(run, url, stringHeaders(request.headers), request.content, ctx.signal, ctx.llmUuid));
        return res.json as Json;
      },
      { modelName: settings.model, dataSchema: settings.codec.wire.schema, metadata: endpointMetadata(url, turn), signal: run.signal, injectTraceparent: settings.injectTraceparent },
    );
    parsed = settings.codec.parseResponse(raw);
    return { parsed, raw };
  } finally {
    llmMetric(run, turn, started, parsed);
  }
}

/**
 * A streamed provider call: a manual `llm` lifecycle (so the end can carry
 * `time_to_first_chunk_ms`), text deltas forwarded to `run.emit` as they arrive.
 */
export async function streamLlm(run: RunContext, body: JsonObject, turn: number): Promise<{ parsed: ParsedTurn; raw: Json }> {
  const { settings } = run;
  const url = settings.codec.url(settings.baseUrl, settings.model, true);
  const started = Date.now();
  const headers = requestHeaders(run);
  const handle = settings.runtime.startLlm(settings.codec.route, { headers, content: body }, {
    modelName: settings.model,
    dataSchema: settings.codec.wire.schema,
    attributes: ["streaming"],
    metadata: endpointMetadata(url, turn),
  });
  let parsed: ParsedTurn | undefined;
  let firstChunkMs: number | undefined;
  try {
    const events = await postStream(transportOptions(run, url, headers, body, run.signal, handle.uuid));
    const gen = settings.codec.parseStream(events);
    for (;;) {
      const step = await gen.next();
      if (step.done) {
        parsed = step.value;
        break;
      }
      if (firstChunkMs === undefined) firstChunkMs = Date.now() - started;
      if (step.value.type === "text" && step.value.delta) run.emit?.({ type: "text", delta: step.value.delta });
    }
    // The assembled reply is recorded in the dialect's own reply shape, so every reader decodes it alike.
    const raw: JsonObject = settings.codec.wire.encodeResponse(parsed.response);
    const metadata: JsonObject = { time_to_first_chunk_ms: firstChunkMs ?? Date.now() - started };
    settings.runtime.endLlm(handle, raw, { metadata });
    return { parsed, raw };
  } catch (err) {
    settings.runtime.endLlm(handle, null, { error: err });
    throw err;
  } finally {
    llmMetric(run, turn, started, parsed);
  }
}

/** The transport options of one provider call (JSON or streamed): retries, their marks, onError, dispatcher. */
function transportOptions(
  run: RunContext,
  url: string,
  headers: Record<string, string>,
  body: unknown,
  signal: AbortSignal | undefined,
  llmUuid: string,
): Parameters<typeof postJson>[0] {
  const { settings } = run;
  const options: Parameters<typeof postJson>[0] = {
    url,
    headers,
    body,
    signal,
    retries: settings.retries,
    retryBaseMs: settings.retryBaseMs,
    onRetry: retryMark(run, llmUuid),
  };
  if (settings.requestTimeoutMs !== undefined) options.timeoutMs = settings.requestTimeoutMs;
  if (settings.maxResponseBytes !== undefined) options.maxResponseBytes = settings.maxResponseBytes;
  if (settings.onError) options.onError = settings.onError;
  if (settings.dispatcher) options.dispatcher = settings.dispatcher;
  return options;
}
