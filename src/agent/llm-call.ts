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
      {
        modelName: settings.model,
        dataSchema: settings.codec.wire.schema,
        metadata: endpointMetadata(url, turn),
        signal: run.signal,
        injectTraceparent: settings.injectTraceparent,
        ...(run.prompt ? { prompt: run.prompt } : {}),
      },
    );
    parsed = settings.codec.parseResponse(raw);
    return { parsed, raw };
  } finally {
    llmMetric(run, turn, started, parsed);
  }
}

/**
 * A streamed provider call as one managed `llm` stream: the runtime records the time to the
 * first chunk and the assembled reply; text deltas go to `run.emit` as they arrive.
 */
export async function streamLlm(run: RunContext, body: JsonObject, turn: number): Promise<{ parsed: ParsedTurn; raw: Json }> {
  const { settings } = run;
  const url = settings.codec.url(settings.baseUrl, settings.model, true);
  const started = Date.now();
  let parsed: ParsedTurn | undefined;
  let raw: JsonObject | undefined;
  try {
    const deltas = settings.runtime.executeLlmStream(
      settings.codec.route,
      { headers: requestHeaders(run), content: body },
      async function* (request, ctx) {
        // The request the runtime hands back is the real one (credentials intact, traceparent added).
        const events = await postStream(
          transportOptions(run, url, stringHeaders(request.headers), request.content, ctx.signal, ctx.llmUuid),
        );
        const gen = settings.codec.parseStream(events);
        for (;;) {
          const step = await gen.next();
          if (step.done) {
            parsed = step.value;
            return;
          }
          yield step.value;
        }
      },
      {
        modelName: settings.model,
        dataSchema: settings.codec.wire.schema,
        metadata: endpointMetadata(url, turn),
        signal: run.signal,
        injectTraceparent: settings.injectTraceparent,
        ...(run.prompt ? { prompt: run.prompt } : {}),
        // The source has finished (and set `parsed`) before the runtime assembles the reply,
        // recorded in the dialect's own reply shape so every reader decodes it alike.
        assemble: () => {
          if (parsed) raw = settings.codec.wire.encodeResponse(parsed.response);
          return raw ?? null;
        },
      },
    );
    for await (const delta of deltas) {
      if (delta.type === "text" && delta.delta) run.emit?.({ type: "text", delta: delta.delta });
    }
    if (!parsed || !raw) throw new Error("provider stream ended without a reply");
    return { parsed, raw };
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
