import { META_RESUME_OF } from "../events/wire-names.js";
import type { Json } from "../events/json.js";
import type { LlmRequest } from "../runtime/types.js";
import type { RunContext } from "../events/run-context.js";
import { codecFor } from "./providers/codec.js";
import { translate, type TranslateOptions, type TranslateResult } from "./translate.js";
import type { Request } from "./pending.js";
import { inAgentScope } from "./agent-scope.js";
import { chainHooks } from "./hooks.js";
import { runTurns } from "./loop.js";
import { emitMetric, type ClientSettings } from "./loop-context.js";
import type { ToolDeclaration } from "./providers/types.js";
import { abandonTranscript, repairTranscript, validateResume } from "./resume.js";
import { defaultRuntime } from "../runtime/default-runtime.js";
import { MetricsRecorder, type MetricsSinks } from "./metrics.js";
import { checkRequestParams } from "./request-body.js";
import { checkClientOptions } from "./client-options.js";
import { InMemoryConversationStore, type ConversationStore } from "./store.js";
import { Toolkit } from "./toolkit.js";
import { checkCallOptions } from "./call-options.js";
import type {
  AbandonOptions,
  AskOptions,
  AskResumeOptions,
  ClientOptions,
  HaltRecord,
  ResumeOptions,
  RunOptions,
  RunResult,
  StreamEvent,
  StreamOptions,
} from "./types.js";

/** The stream sink of a non-streaming call that wants text deltas; undefined keeps the JSON path. */
function textSink(onText: ((delta: string) => void) | undefined): ((e: StreamEvent) => void) | undefined {
  if (!onText) return undefined;
  return (e) => {
    if (e.type === "text") onText(e.delta);
  };
}

/**
 * `options.apiKey`, else the style's own env key, else (OpenAI styles only) `OPENROUTER_API_KEY`.
 * Never the other provider's key: that would send an Anthropic secret to an OpenAI-style host.
 */
function resolveApiKey(options: ClientOptions): string | undefined {
  if (options.apiKey) return options.apiKey;
  const env = process.env;
  if (options.style === "anthropic") return env.ANTHROPIC_API_KEY || undefined;
  if (options.style === "gemini") return env.GEMINI_API_KEY || env.GOOGLE_API_KEY || undefined;
  return env.OPENAI_API_KEY || env.OPENROUTER_API_KEY || undefined;
}

function metricsSinks(options: ClientOptions): MetricsSinks {
  const sinks: MetricsSinks = {};
  if (options.meterProvider) sinks.meterProvider = options.meterProvider;
  if (options.onMetric) sinks.onMetric = options.onMetric;
  return sinks;
}

function settingsOf(options: ClientOptions): ClientSettings {
  const s: ClientSettings = {
    runtime: options.runtime ?? defaultRuntime(),
    codec: codecFor(options.style),
    baseUrl: options.baseUrl,
    model: options.model,
    headers: { ...(options.headers ?? {}) },
    systemPrompt: options.systemPrompt ?? "",
    maxTurns: options.maxTurns ?? 10,
    retries: options.retries ?? 2,
    retryBaseMs: options.retryBaseMs ?? 500,
    agentName: options.agentName ?? "agent",
    injectTraceparent: options.injectTraceparent !== false,
    hooks: chainHooks(options.hooks),
    metrics: new MetricsRecorder(metricsSinks(options)),
  };
  const apiKey = resolveApiKey(options);
  if (apiKey) s.apiKey = apiKey;
  if (options.timeoutMs !== undefined) s.timeoutMs = options.timeoutMs;
  if (options.requestTimeoutMs !== undefined) s.requestTimeoutMs = options.requestTimeoutMs;
  if (options.maxResponseBytes !== undefined) s.maxResponseBytes = options.maxResponseBytes;
  if (options.waitFor) s.waitFor = options.waitFor;
  if (options.dispatcher) s.dispatcher = options.dispatcher;
  const requestParams = checkRequestParams(options.requestParams);
  if (requestParams) s.requestParams = requestParams;
  if (options.bodyTransform) s.bodyTransform = options.bodyTransform;
  if (options.onError) s.onError = options.onError;
  if (options.prompt) s.prompt = options.prompt;
  return s;
}

/** The agent client: runs the tool-calling loop against one provider, traced through the runtime. */
export class Client {
  private readonly settings: ClientSettings;
  /** Where `ask`, `askWithAnswer` and `abandon(id)` keep transcripts (in memory unless `options.store`). */
  readonly store: ConversationStore;

  /** Throws a TypeError naming the option when `options` cannot work (see `createClient`). */
  constructor(options: ClientOptions) {
    checkClientOptions(options);
    this.settings = settingsOf(options);
    this.store = options.store ?? new InMemoryConversationStore();
  }

  /** Prometheus text exposition of this client's LLM, tool and run metrics, for a `/metrics` endpoint (byte-stable). */
  metrics(): string {
    return this.settings.metrics.render();
  }

  /**
   * One stateless run: `history` (verbatim) or a fresh transcript, then the user prompt; the loop
   * goes until the model answers with text, a tool suspends (`status: "pending"`) or `maxTurns`.
   * Without a toolkit the run declares no tools. With `onText` the provider calls are streamed
   * and each text delta is handed to it. Rejects on provider failures, hook errors, aborts (the
   * agent scope still ends) and an unknown option key.
   */
  run(prompt: string, options: RunOptions = {}): Promise<RunResult> {
    try {
      checkCallOptions("run", options);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.start(prompt, options, textSink(options.onText));
  }

  /**
   * A run with conversation memory: the store's transcript for `id` in, the new transcript saved
   * back (a pending one too). Without an `id` it is exactly `run` — stateless, nothing read or saved.
   */
  async ask(prompt: string, options: AskOptions = {}): Promise<RunResult> {
    checkCallOptions("ask", options);
    const runOptions: RunOptions = {};
    if (options.toolkit) runOptions.toolkit = options.toolkit;
    if (options.signal) runOptions.signal = options.signal;
    if (options.context) runOptions.context = options.context;
    if (options.prompt) runOptions.prompt = options.prompt;
    const emit = textSink(options.onText);
    if (options.id === undefined) return this.start(prompt, runOptions, emit);
    runOptions.history = (await this.store.get(options.id)) ?? [];
    const result = await this.start(prompt, runOptions, emit, { session_id: options.id });
    await this.store.save(options.id, result.messages);
    return result;
  }

  /**
   * A streaming run: yields text deltas, tool calls, suspensions, results and usage as they
   * happen, then `done` with the RunResult. Stopping the iteration early aborts the run. With
   * `id` the conversation is loaded from and saved to the store, as `ask` does.
   */
  async *stream(prompt: string, options: StreamOptions = {}): AsyncGenerator<StreamEvent, void, undefined> {
    checkCallOptions("stream", options);
    const queue: StreamEvent[] = [];
    let wake: (() => void) | undefined;
    let finished = false;
    let failure: { error: unknown } | undefined;
    let result: RunResult | undefined;
    // Stopping iteration early cancels the run, so no scope is left open.
    const stop = new AbortController();
    const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
    const emit = (e: StreamEvent) => {
      queue.push(e);
      wake?.();
    };
    const { id } = options;
    const runOptions: RunOptions = { signal };
    if (options.toolkit) runOptions.toolkit = options.toolkit;
    if (options.history) runOptions.history = options.history;
    if (options.context) runOptions.context = options.context;
    if (options.prompt) runOptions.prompt = options.prompt;
    const started = (async () => {
      if (id === undefined) return this.start(prompt, runOptions, emit);
      runOptions.history = (await this.store.get(id)) ?? [];
      const r = await this.start(prompt, runOptions, emit, { session_id: id });
      await this.store.save(id, r.messages);
      return r;
    })();
    started.then(
      (r) => ((result = r), (finished = true), wake?.()),
      (e: unknown) => ((failure = { error: e }), (finished = true), wake?.()),
    );
    try {
      for (;;) {
        const next = queue.shift();
        if (next) {
          yield next;
          continue;
        }
        if (finished) break;
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
      }
      if (failure) throw failure.error;
      yield { type: "done", result: result! };
    } finally {
      if (!finished) stop.abort(new Error("stream consumer stopped"));
    }
  }

  private start(
    prompt: string,
    options: RunOptions,
    emit: ((e: StreamEvent) => void) | undefined,
    metadata?: Record<string, Json>,
  ): Promise<RunResult> {
    const { codec, systemPrompt } = this.settings;
    const toolkit = options.toolkit ?? new Toolkit([]);
    const history = options.history && options.history.length > 0 ? options.history : undefined;
    const start: { systemPrompt: string; prompt: string; history?: unknown[] } = {
      systemPrompt: [systemPrompt, toolkit.skillsPrompt()].filter((s) => s).join("\n\n"),
      prompt,
    };
    if (history) start.history = structuredClone(history);
    const messages = codec.startMessages(start);
    const scopeOptions: Parameters<typeof inAgentScope>[1] = { toolkit, input: { prompt } };
    if (metadata) scopeOptions.metadata = metadata;
    if (options.signal) scopeOptions.signal = options.signal;
    if (emit) scopeOptions.emit = emit;
    if (options.prompt) scopeOptions.prompt = options.prompt;
    return this.inRunContext(options.context, () =>
      inAgentScope(this.settings, scopeOptions, (run) => runTurns(run, messages, emit !== undefined)),
    );
  }

  /** `fn()` inside `runtime.withContext(context)` when the call was given one; a bad context rejects, naming its field. */
  private inRunContext<T>(context: RunContext | undefined, fn: () => Promise<T>): Promise<T> {
    if (context === undefined) return fn();
    try {
      return this.settings.runtime.withContext(context, fn);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Durable resume of a halted run: repairs the halted turn with the answer and
   * continues with no new user turn, in the halted run's trace. Throws when the answer id does not echo `pending.id`.
   */
  runWithAnswer(options: ResumeOptions): Promise<RunResult> {
    try {
      checkCallOptions("runWithAnswer", options);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.resume(options, undefined);
  }

  private async resume(options: ResumeOptions, metadata: Record<string, Json> | undefined): Promise<RunResult> {
    const { pending, answer, history, halt } = options;
    const index = validateResume(this.settings.codec, history, pending, answer);
    const scopeOptions: Parameters<typeof inAgentScope>[1] = {
      toolkit: options.toolkit ?? new Toolkit([]),
      input: { resume: pending.id },
      metadata: { ...(metadata ?? {}), [META_RESUME_OF]: pending.id },
      traceContext: pending.data?.traceContext,
    };
    if (options.signal) scopeOptions.signal = options.signal;
    if (options.prompt) scopeOptions.prompt = options.prompt;
    return this.inRunContext(options.context, () =>
      inAgentScope(this.settings, scopeOptions, async (run) => {
        const repaired = await repairTranscript(run, structuredClone(history), index, pending, answer, halt);
        return repaired.halted ?? runTurns(run, repaired.messages, false);
      }),
    );
  }

  /** `runWithAnswer` on a stored conversation: loads the transcript for `id`, resumes, saves the result back. */
  async askWithAnswer(options: AskResumeOptions): Promise<RunResult> {
    checkCallOptions("askWithAnswer", options);
    if (!options.id) throw new Error("cannot resume — askWithAnswer needs a conversation id");
    const history = (await this.store.get(options.id)) ?? [];
    const resume: ResumeOptions = { history, pending: options.pending, answer: options.answer };
    if (options.toolkit) resume.toolkit = options.toolkit;
    if (options.halt) resume.halt = options.halt;
    if (options.signal) resume.signal = options.signal;
    if (options.context) resume.context = options.context;
    if (options.prompt) resume.prompt = options.prompt;
    const result = await this.resume(resume, { session_id: options.id });
    await this.store.save(options.id, result.messages);
    return result;
  }

  /**
   * Gives up on a halted run without calling the model: suspended slots become
   * `abandoned (<reason>): <prompt>` so the transcript is valid again; saved back when given an id.
   */
  async abandon(historyOrId: unknown[] | string, pending: Request, options: AbandonOptions = {}): Promise<unknown[]> {
    const history = typeof historyOrId === "string" ? ((await this.store.get(historyOrId)) ?? []) : historyOrId;
    const halt: HaltRecord | undefined = options.halt;
    const repaired = abandonTranscript(this.settings.codec, history, pending, halt, options.reason ?? "cancelled");
    if (typeof historyOrId === "string") await this.store.save(historyOrId, repaired);
    return repaired;
  }

  /**
   * One traced provider call for an OpenAI-style transcript, translated to this client's
   * style and back: no loop, no tools executed. For proxies that own their own loop.
   * `beforeLLM` (which may replace the messages or the toolkit's declarations) and `afterLLM`
   * fire once with `turn: 0`, their errors swallowed; one `llm` metric is recorded.
   */
  async translate(options: TranslateOptions & { toolkit?: Toolkit }): Promise<TranslateResult> {
    checkCallOptions("translate", options);
    const s = this.settings;
    const input = await translateHooksBefore(s, options);
    let llmUuid: string | undefined;
    const deps: Parameters<typeof translate>[0] = {
      codec: s.codec,
      baseUrl: s.baseUrl,
      model: s.model,
      headers: s.headers,
      systemPrompt: s.systemPrompt,
      retries: s.retries,
      retryBaseMs: s.retryBaseMs,
      onRetry: (info) => {
        if (llmUuid) s.runtime.mark("llm.retry", { parent: { uuid: llmUuid }, data: { ...info } as Json });
      },
      callLlm: (route, request, send) =>
        s.runtime.executeLlm(
          route,
          request,
          async (real, ctx) => {
            llmUuid = ctx.llmUuid;
            return (await (send as (r?: LlmRequest) => Promise<unknown>)(real)) as Json;
          },
          { modelName: s.model, dataSchema: s.codec.wire.schema, injectTraceparent: s.injectTraceparent },
        ),
    };
    if (s.apiKey) deps.apiKey = s.apiKey;
    if (s.timeoutMs !== undefined) deps.timeoutMs = s.timeoutMs;
    if (s.requestTimeoutMs !== undefined) deps.requestTimeoutMs = s.requestTimeoutMs;
    if (s.maxResponseBytes !== undefined) deps.maxResponseBytes = s.maxResponseBytes;
    if (s.dispatcher) deps.dispatcher = s.dispatcher;
    if (s.requestParams) deps.requestParams = s.requestParams;
    if (s.bodyTransform) deps.bodyTransform = s.bodyTransform;
    if (s.onError) deps.onError = s.onError;
    const started = Date.now();
    let result: TranslateResult | undefined;
    try {
      result = await translate(deps, input);
    } finally {
      emitMetric(s, {
        event: "llm",
        model: s.model,
        status: result ? "ok" : "error",
        ms: Date.now() - started,
        promptTokens: result?.usage.promptTokens ?? 0,
        completionTokens: result?.usage.completionTokens ?? 0,
        runUuid: "", // a translate call belongs to no run
        turn: 0,
      });
    }
    try {
      await s.hooks.afterLLM({ response: result.raw, model: s.model, turn: 0 });
    } catch {
      // translate swallows hook errors: the proxy's reply does not depend on them
    }
    return result;
  }
}

/** `beforeLLM` on a translate call: it may replace the transcript or the toolkit's declarations; a throw is ignored. */
async function translateHooksBefore(s: ClientSettings, options: TranslateOptions & { toolkit?: Toolkit }): Promise<TranslateOptions> {
  const tools: ToolDeclaration[] = options.toolkit?.declarations() ?? [];
  try {
    const hooked = await s.hooks.beforeLLM({ messages: options.messages, tools, model: s.model, turn: 0 });
    if (!hooked.messages && !hooked.tools) return options;
    const out: TranslateOptions = { ...options };
    if (hooked.messages) out.messages = hooked.messages;
    if (hooked.tools) {
      const replaced = hooked.tools;
      out.toolkit = { declarations: () => replaced };
    }
    return out;
  } catch {
    return options;
  }
}

/**
 * Makes an agent client for one provider endpoint. Throws a TypeError naming the option when one
 * is missing, malformed or unknown. Without `runtime` it traces into the process `defaultRuntime()`.
 */
export function createClient(options: ClientOptions): Client {
  return new Client(options);
}
