import { runInSpan } from "./otel-context.js";
import { CANCELLED, raceAbort, signalForCall } from "./abort.js";
import { currentScopeContext } from "../events/scope-stack.js";
import { LlmCall, llmInfo, type ExecuteLlmOptions, type LlmLifecycle } from "./llm-lifecycle.js";
import { cancellationMessage, openCall } from "./call.js";
import { recordWhileFailing } from "./failure-path.js";
import { chainIntercepts } from "./intercept-chain.js";
import type { LlmStreamIntercept, RuntimeCore } from "./runtime-core.js";
import { ChunkTiming, streamRecorder, type StreamAssembly } from "./stream-record.js";
import type { Json } from "../events/json.js";
import type { LlmRequest } from "./types.js";

/** The provider call of a managed stream: the chunks as they arrive, or a promise of them (as an SDK's `stream: true` call gives). */
export type LlmStreamFunction<C, B = Json> = (
  request: LlmRequest<B>,
  ctx: { signal: AbortSignal; llmUuid: string },
) => AsyncIterable<C> | PromiseLike<AsyncIterable<C>>;

export type { LlmStreamIntercept };

export interface ExecuteLlmStreamOptions<C> extends ExecuteLlmOptions {
  /**
   * Builds the response the `llm` end records from every chunk the caller received. Default: the
   * dialect's codec (by `dataSchema`, else the event name) assembles the reply a non-streaming call
   * records; `"chunks"` records the chunks themselves, as a JSON array (also when no dialect is known).
   */
  assemble?: StreamAssembly<C>;
}

async function* fromFunction<C>(source: AsyncIterable<C> | PromiseLike<AsyncIterable<C>>): AsyncGenerator<C> {
  yield* await source;
}

/**
 * A managed LLM stream: the managed-call skeleton (guardrails → request intercepts → open) runs
 * when iteration starts, then each chunk passes the stream intercepts on its way to the caller.
 * The `llm` end records the time to the first chunk, the time between chunks after it, and the
 * assembled response. An abort, or a caller that stops iterating early, ends the call as cancelled; an error ends it with the error.
 */
export function executeLlmStream<C>(
  core: RuntimeCore,
  llms: LlmLifecycle,
  name: string,
  request: LlmRequest,
  fn: LlmStreamFunction<C>,
  options: ExecuteLlmStreamOptions<C> = {},
): AsyncIterable<C> {
  const { assemble, ...llmOptions } = options;
  const flags = [...(llmOptions.attributes ?? []), "streaming"];
  // Placed now: the stream belongs to the scope it was created in, whoever iterates it.
  const llm = new LlmCall(llms, currentScopeContext(), name, request, fn, { ...llmOptions, attributes: flags });
  const record = streamRecorder(core, name, llmOptions.dataSchema, assemble);
  return {
    async *[Symbol.asyncIterator]() {
      const { handle, input } = await openCall(core, llm);
      const context = llm.execution(handle);
      const signal = llm.signal;
      const handed = signalForCall(signal);
      const info = llmInfo(name, handle);
      const call = chainIntercepts(
        core.registries.llmStreamIntercepts.effective(llm.stack),
        (req: LlmRequest): AsyncIterable<unknown> => fromFunction(fn(req, { signal: handed, llmUuid: handle.uuid })),
        (intercept, req, next) => intercept.callback(req, next, info),
      );
      const real = llms.withTraceparent(context, handle, input, llmOptions);
      const chunks: C[] = [];
      const clock = new ChunkTiming(handle.startedAtUs);
      let iterator: AsyncIterator<unknown> | undefined;
      const timing = () => clock.metadata();
      try {
        if (signal?.aborted === true) throw CANCELLED;
        iterator = runInSpan(context, handle, () => call(real)[Symbol.asyncIterator]());
        for (;;) {
          const source = iterator;
          const step = await raceAbort(
            runInSpan(context, handle, () => source.next()),
            signal,
          );
          if (step.done) break;
          clock.arrived(core.nowUs());
          chunks.push(step.value as C);
          yield step.value as C;
        }
        const { response, metadata } = record(chunks);
        llms.close(llm.stack, handle, response, { metadata: { ...timing(), ...metadata } });
      } catch (error) {
        const cancelled = error === CANCELLED;
        // What arrived before the break is recorded, marked incomplete.
        recordWhileFailing(core.diagnostics, `llm ${name}`, () => {
          const cut = chunks.length > 0 ? record(chunks) : undefined;
          llm.failStream(handle, error, cancelled, { ...timing(), ...cut?.metadata }, cut?.response);
        });
        void closeQuietly(iterator);
        if (cancelled) throw signal?.reason ?? new Error(cancellationMessage("llm"));
        throw error;
      } finally {
        if (!handle.ended) {
          // The caller stopped iterating before the stream ended.
          void closeQuietly(iterator);
          recordWhileFailing(core.diagnostics, `llm ${name}`, () => {
            const cut = chunks.length > 0 ? record(chunks) : undefined;
            llm.failStream(handle, undefined, true, { ...timing(), ...cut?.metadata }, cut?.response);
          });
        }
      }
    },
  };
}

async function closeQuietly(iterator: AsyncIterator<unknown> | undefined): Promise<void> {
  try {
    await iterator?.return?.();
  } catch {
    // the source failed while closing; the call has already ended
  }
}
