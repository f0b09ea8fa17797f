import type { Json, JsonObject } from "../../events/json.js";
import type { DataSchema } from "../../events/types.js";
import { PROFILE_MODEL_NAME } from "../../events/wire-names.js";
import { currentScopeContext, runInScopeContext, type ScopeContext } from "../../events/scope-stack.js";
import type { InternalLlmHandle } from "../../runtime/llm-lifecycle.js";
import { recordableRequest } from "../../runtime/llm-lifecycle.js";
import { injectTraceContext, otelPropagatesTraceparent, runInSpan } from "../../runtime/otel-context.js";
import type { Runtime } from "../../runtime/runtime.js";
import type { LlmHandle } from "../../runtime/types.js";
import { closeDetached, openDetached, type DetachedScope } from "../detached-scopes.js";

/** What a wrapper knows of a call when it starts. */
export interface CallStart {
  /** the scope's name */
  name: string;
  /** the request body as the SDK sends it (recorded as a JSON copy) */
  body: unknown;
  /** the headers the app gave this one call; values outside the header policy are recorded as `[redacted]` */
  headers?: Record<string, Json>;
  model?: string;
  dataSchema?: DataSchema;
  /** where the request goes: recorded as `server_address` / `server_port`, as the loop's calls record it */
  server?: { address: string; port: number };
  stream: boolean;
}

/**
 * One SDK call being recorded: opened when the SDK method is called, ended once (later calls are
 * ignored) with the reply, or failed with what the SDK threw. The SDK's own work runs `within`
 * it, so the app's HTTP instrumentation nests under it and relaytrace scopes opened there are its
 * children. Recording never throws into the app: a failure to end is swallowed (the runtime
 * counts its own problems in diagnostics).
 */
export abstract class RecordedCall {
  /** `performance.now()` at the start: the base of the stream timings. */
  readonly startedAtMs = performance.now();
  private done = false;

  /** Runs `fn` with this call as the active relaytrace and OpenTelemetry span. */
  abstract within<T>(fn: () => T): T;

  /** The `traceparent` (and `tracestate`) of this call, unless an OpenTelemetry propagator writes them. */
  traceHeaders(): Record<string, string> {
    const headers: Record<string, string> = {};
    if (!otelPropagatesTraceparent()) this.within(() => injectTraceContext(headers));
    return headers;
  }

  get ended(): boolean {
    return this.done;
  }

  /** The successful end with the reply (and end metadata: timings, an incomplete stream). */
  end(reply: Json, metadata?: JsonObject): void {
    this.finish(() => this.close(reply, metadata));
  }

  /** The failed end: `error` is what the app got (or the abort reason); `data` what the provider answered. */
  fail(error: unknown, data?: Json, metadata?: JsonObject): void {
    this.finish(() => this.close(undefined, metadata, { error, data: data ?? null }));
  }

  protected abstract close(reply: Json | undefined, metadata: JsonObject | undefined, failure?: { error: unknown; data: Json }): void;

  private finish(end: () => void): void {
    if (this.done) return;
    this.done = true;
    try {
      end();
    } catch {
      // telemetry never breaks the app
    }
  }
}

function startMetadata(start: CallStart): JsonObject {
  return start.server === undefined ? {} : { server_address: start.server.address, server_port: start.server.port };
}

/** A model call: an `llm` scope through the runtime's LLM lifecycle (header policy, sanitizers, cost). */
class LlmRecordedCall extends RecordedCall {
  private readonly handle: LlmHandle;
  private readonly context: ScopeContext;

  constructor(
    private readonly runtime: Runtime,
    start: CallStart,
  ) {
    super();
    this.handle = runtime.startLlm(
      start.name,
      { headers: start.headers ?? {}, content: start.body },
      {
        metadata: startMetadata(start),
        ...(start.model !== undefined ? { modelName: start.model } : {}),
        ...(start.dataSchema !== undefined ? { dataSchema: start.dataSchema } : {}),
        ...(start.stream ? { attributes: ["streaming"] } : {}),
      },
    );
    // The stack the call was placed on (an app's OpenTelemetry span's trace, when it continues one).
    const stack = (this.handle as InternalLlmHandle).linkedStack ?? currentScopeContext().stack;
    this.context = { stack: stack.snapshot(), activeEventUuid: this.handle.uuid };
  }

  within<T>(fn: () => T): T {
    return runInSpan(this.context, this.handle, fn);
  }

  protected close(reply: Json | undefined, metadata: JsonObject | undefined, failure?: { error: unknown; data: Json }): void {
    const options = failure === undefined ? {} : { error: failure.error, data: failure.data };
    // Ended on the stack it started on, wherever the reply is read.
    runInScopeContext({ stack: this.context.stack }, () =>
      this.runtime.endLlm(this.handle, reply ?? null, metadata === undefined ? options : { ...options, metadata }),
    );
  }
}

/** An embeddings call: an `embedder` scope (the projections name it `embeddings {model}`). */
class EmbedderRecordedCall extends RecordedCall {
  private readonly scope: DetachedScope;

  constructor(
    private readonly runtime: Runtime,
    start: CallStart,
  ) {
    super();
    this.scope = openDetached(runtime, start.name, {
      category: "embedder",
      // The runtime's header policy applies to llm events; here the default one keeps credentials out.
      input: recordableRequest({ headers: start.headers ?? {}, content: start.body as Json }),
      metadata: startMetadata(start),
      ...(start.model !== undefined ? { categoryProfile: { [PROFILE_MODEL_NAME]: start.model } } : {}),
    });
  }

  within<T>(fn: () => T): T {
    return runInSpan({ stack: this.scope.stack, activeEventUuid: this.scope.handle.uuid }, this.scope.handle, fn);
  }

  protected close(reply: Json | undefined, metadata: JsonObject | undefined, failure?: { error: unknown; data: Json }): void {
    closeDetached(this.runtime, this.scope, {
      ...(failure === undefined ? { output: reply ?? null } : { error: failure.error, output: failure.data }),
      ...(metadata !== undefined ? { metadata } : {}),
    });
  }
}

export function recordLlmCall(runtime: Runtime, start: CallStart): RecordedCall {
  return new LlmRecordedCall(runtime, start);
}

export function recordEmbeddingsCall(runtime: Runtime, start: CallStart): RecordedCall {
  return new EmbedderRecordedCall(runtime, start);
}
