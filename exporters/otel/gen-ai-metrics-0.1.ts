import { ValueType, type Attributes, type Counter, type Histogram, type Meter } from "@opentelemetry/api";
import type { ScopeEvent } from "../../src/events/types.js";
import { GenAiProjection } from "./gen-ai.js";
import { timesPerOutputChunkOf, timeToFirstChunkOf } from "./gen-ai-llm.js";
import {
  DURATION_BUCKETS,
  MAX_OPEN_CALLS,
  METRIC_ATTRIBUTES,
  pick,
  scratchSpan,
  TOKEN_BUCKETS,
  type GenAiMetrics,
} from "./gen-ai-metrics.js";
import type { OpenSpan } from "./open-span.js";
import * as G from "./semconv.js";
import * as L from "./semconv-genai-0.1.js";

/** Bucket advice for an agent invocation (seconds) and for call counts per invocation. */
const AGENT_DURATION_BUCKETS = [0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 6.4, 12.8, 25.6, 51.2, 102.4, 204.8, 409.6];
const CALL_COUNT_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128];
const AGENT_OPERATIONS: ReadonlySet<unknown> = new Set([G.GenAiOperation.invokeAgent, G.GenAiOperation.invokeWorkflow]);
const AGENT_ATTRIBUTES = [G.GEN_AI_OPERATION_NAME, G.GEN_AI_AGENT_NAME];
const TOOL_ATTRIBUTES = [G.GEN_AI_OPERATION_NAME, G.GEN_AI_TOOL_NAME, G.GEN_AI_TOOL_TYPE];

/** An open scope: its projected attributes, and for an agent invocation the calls it made so far. */
interface OpenScope {
  span: OpenSpan;
  operation: unknown;
  /** The innermost agent (or workflow) invocation this scope runs in, if any. */
  invocation: OpenScope | undefined;
  inferenceCalls: number;
  toolCalls: number;
}

/**
 * semantic-conventions-genai v0.1.0's metrics. Each `llm` scope records
 * `gen_ai.client.inference.duration`, the `gen_ai.client.inference.usage.*` counters (input,
 * output, cache read, cache write, reasoning output; `gen_ai.token.modality` `unknown`) and the
 * `gen_ai.client.inference.operation.*_tokens` histograms, failed calls with 0 tokens, and
 * streamed ones `gen_ai.client.inference.time_to_first_chunk` and `time_per_output_chunk`.
 * Each agent invocation (an `agent` scope, or a workflow: they share the internal agent span)
 * records `gen_ai.invoke_agent.duration` and the model and tool calls it made itself
 * (`gen_ai.invoke_agent.inference_calls` / `tool_calls`, a nested agent's calls count for that
 * agent only); each tool scope records `gen_ai.execute_tool.duration`.
 */
export class GenAiMetricsV010 implements GenAiMetrics {
  private readonly open = new Map<string, OpenScope>();
  private readonly genAi = new GenAiProjection("0.1.0");
  private readonly duration: Histogram;
  private readonly firstChunk: Histogram;
  private readonly perChunk: Histogram;
  private readonly usage: Record<"input" | "output" | "cacheRead" | "cacheWrite" | "reasoning", Counter>;
  private readonly operationInput: Histogram;
  private readonly operationOutput: Histogram;
  private readonly agentDuration: Histogram;
  private readonly inferenceCalls: Histogram;
  private readonly toolCalls: Histogram;
  private readonly toolDuration: Histogram;

  constructor(meter: Meter) {
    const seconds = (name: string, description: string, buckets = DURATION_BUCKETS) =>
      meter.createHistogram(name, { unit: "s", description, advice: { explicitBucketBoundaries: buckets } });
    const tokens = (name: string, description: string) =>
      meter.createCounter(name, { unit: "{token}", description, valueType: ValueType.INT });
    this.duration = seconds(L.GEN_AI_CLIENT_INFERENCE_DURATION, "GenAI client inference operation duration");
    this.firstChunk = seconds(L.GEN_AI_CLIENT_INFERENCE_TIME_TO_FIRST_CHUNK, "Time to receive the first chunk of a streamed response");
    this.perChunk = seconds(
      L.GEN_AI_CLIENT_INFERENCE_TIME_PER_OUTPUT_CHUNK,
      "Time between consecutive output chunks of a streamed response, for each chunk after the first",
    );
    this.usage = {
      input: tokens(L.GEN_AI_CLIENT_INFERENCE_USAGE_INPUT_TOKENS, "The number of input (prompt) tokens used, including cached tokens"),
      output: tokens(
        L.GEN_AI_CLIENT_INFERENCE_USAGE_OUTPUT_TOKENS,
        "The number of output (completion) tokens used, including reasoning tokens",
      ),
      cacheRead: tokens(
        L.GEN_AI_CLIENT_INFERENCE_USAGE_CACHE_READ_INPUT_TOKENS,
        "The number of input tokens served from a provider-managed cache",
      ),
      cacheWrite: tokens(
        L.GEN_AI_CLIENT_INFERENCE_USAGE_CACHE_WRITE_INPUT_TOKENS,
        "The number of input tokens written to a provider-managed cache",
      ),
      reasoning: tokens(L.GEN_AI_CLIENT_INFERENCE_USAGE_REASONING_OUTPUT_TOKENS, "The number of output tokens used for reasoning"),
    };
    const perOperation = (name: string, description: string) =>
      meter.createHistogram(name, {
        unit: "{token}",
        description,
        valueType: ValueType.INT,
        advice: { explicitBucketBoundaries: TOKEN_BUCKETS },
      });
    this.operationInput = perOperation(
      L.GEN_AI_CLIENT_INFERENCE_OPERATION_INPUT_TOKENS,
      "The number of input tokens used per inference operation",
    );
    this.operationOutput = perOperation(
      L.GEN_AI_CLIENT_INFERENCE_OPERATION_OUTPUT_TOKENS,
      "The number of output tokens used per inference operation",
    );
    this.agentDuration = seconds(
      L.GEN_AI_INVOKE_AGENT_DURATION,
      "The end-to-end duration of a single agent invocation",
      AGENT_DURATION_BUCKETS,
    );
    const calls = (name: string, unit: string, description: string) =>
      meter.createHistogram(name, {
        unit,
        description,
        valueType: ValueType.INT,
        advice: { explicitBucketBoundaries: CALL_COUNT_BUCKETS },
      });
    this.inferenceCalls = calls(
      L.GEN_AI_INVOKE_AGENT_INFERENCE_CALLS,
      "{inference_call}",
      "The number of inference calls an agent invocation made",
    );
    this.toolCalls = calls(L.GEN_AI_INVOKE_AGENT_TOOL_CALLS, "{tool_call}", "The number of tool calls an agent invocation made");
    this.toolDuration = seconds(L.GEN_AI_EXECUTE_TOOL_DURATION, "The duration of a single tool execution");
  }

  onStart(start: ScopeEvent, us: number): void {
    const span = scratchSpan(start, us);
    this.genAi.onStart(start, span);
    const operation = span.attributes[G.GEN_AI_OPERATION_NAME];
    const parent = start.parent_uuid ? this.open.get(start.parent_uuid) : undefined;
    const invocation = parent && AGENT_OPERATIONS.has(parent.operation) ? parent : parent?.invocation;
    if (invocation && span.scopeType === "llm") invocation.inferenceCalls++;
    if (invocation && operation === G.GenAiOperation.executeTool) invocation.toolCalls++;
    if (this.open.size >= MAX_OPEN_CALLS) this.open.delete(this.open.keys().next().value!);
    this.open.set(start.uuid, { span, operation, invocation, inferenceCalls: 0, toolCalls: 0 });
  }

  onEnd(end: ScopeEvent, us: number, errorType: string | undefined): void {
    const scope = this.open.get(end.uuid);
    if (scope === undefined) return;
    this.open.delete(end.uuid);
    const seconds = Math.max(0, us - scope.span.startUs) / 1_000_000;
    if (scope.span.scopeType === "llm") this.inference(scope.span, end, seconds, errorType);
    else if (AGENT_OPERATIONS.has(scope.operation)) {
      const attrs = pick(scope.span.attributes, AGENT_ATTRIBUTES);
      this.inferenceCalls.record(scope.inferenceCalls, attrs);
      this.toolCalls.record(scope.toolCalls, attrs);
      this.agentDuration.record(seconds, withError(attrs, errorType));
    } else if (scope.operation === G.GenAiOperation.executeTool) {
      this.toolDuration.record(seconds, withError(pick(scope.span.attributes, TOOL_ATTRIBUTES), errorType));
    }
  }

  private inference(span: OpenSpan, end: ScopeEvent, seconds: number, errorType: string | undefined): void {
    if (errorType === undefined) this.genAi.onEnd(end, span);
    const attrs = pick(span.attributes, METRIC_ATTRIBUTES);
    const failedAttrs = withError(attrs, errorType);
    this.duration.record(seconds, failedAttrs);
    const firstChunk = timeToFirstChunkOf(end);
    if (firstChunk !== undefined) this.firstChunk.record(firstChunk, attrs);
    for (const gap of timesPerOutputChunkOf(end)) this.perChunk.record(gap, attrs);
    // Every call counts, a failed one or one without usage with 0 tokens.
    const count = (key: string) => {
      const value = span.attributes[key];
      return typeof value === "number" ? value : 0;
    };
    const input = count(G.GEN_AI_USAGE_INPUT_TOKENS);
    const output = count(G.GEN_AI_USAGE_OUTPUT_TOKENS);
    const usageAttrs: Attributes = { ...attrs, [L.GEN_AI_TOKEN_MODALITY]: L.TOKEN_MODALITY_UNKNOWN };
    this.usage.input.add(input, usageAttrs);
    this.usage.output.add(output, usageAttrs);
    this.usage.cacheRead.add(count(G.GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS), usageAttrs);
    this.usage.cacheWrite.add(count(L.GEN_AI_USAGE_CACHE_WRITE_INPUT_TOKENS), usageAttrs);
    this.usage.reasoning.add(count(G.GEN_AI_USAGE_REASONING_OUTPUT_TOKENS), usageAttrs);
    this.operationInput.record(input, failedAttrs);
    this.operationOutput.record(output, failedAttrs);
  }
}

function withError(attrs: Attributes, errorType: string | undefined): Attributes {
  return errorType === undefined ? attrs : { ...attrs, [G.ERROR_TYPE]: errorType };
}
