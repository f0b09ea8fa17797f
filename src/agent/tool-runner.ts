import { META_RETRY_OF, TOOL_ANSWER_MARK } from "../events/wire-names.js";
import type { Json, JsonObject } from "../events/json.js";
import type { ParsedToolCall } from "./providers/types.js";
import { isRequest, pendingOf, type Answer, type Request, type ToolResult } from "./pending.js";
import type { ToolExecutionResult, ToolFunction } from "../runtime/types.js";
import { CallFailure, GuardrailRejectedError } from "../runtime/errors.js";
import { isRelayRequest, stampRelayRequest } from "./relay.js";
import { toToolResult } from "./tool.js";
import { markSkillLoad } from "./skill-mark.js";
import { emitMetric, type RunContext } from "./loop-context.js";
import { raceAbort } from "./race-abort.js";

/** The outcome of one tool call of a turn, kept in its call-order slot. */
export interface CallSlot {
  call: ParsedToolCall;
  args: Record<string, unknown>;
  result: ToolResult;
  /** Set when the call is still suspended (durable halt path). */
  suspended?: Request;
  toolUuid?: string;
}

const REMOTE_SOURCES = new Set(["relay", "mcp", "http", "a2a"]);

interface ManagedOptions {
  answer?: Answer;
  retryOf?: string;
  /** A `beforeTool` short-circuit result: returned instead of executing the tool. */
  shortCircuit?: ToolResult;
}

/** What the tool function reports back to executeManaged: the tool scope's uuid and a failure it threw. */
interface ToolRunState {
  toolUuid: string;
  failed?: { error: unknown; result: ToolResult };
}

/** The tool scope's metadata: the turn, where the tool comes from, and which call it retries. */
function toolMetadata(run: RunContext, call: ParsedToolCall, turn: number, retryOf: string | undefined): Record<string, Json> {
  const tool = run.toolkit.get(call.name);
  const source = tool?.source ?? "custom";
  const metadata: Record<string, Json> = {
    turn,
    tool_source: source,
    tool_type: source === "relay" ? "function" : "extension",
    tool_description: tool?.description ?? "",
  };
  if (retryOf) metadata[META_RETRY_OF] = retryOf;
  return metadata;
}

/**
 * The function the runtime runs as the tool call: the `beforeTool` short-circuit, or the toolkit's tool
 * on the (possibly intercepted) arguments; a relay request gets its call id, the annotation goes to the trace.
 */
function toolFunction(run: RunContext, call: ParsedToolCall, source: string, opts: ManagedOptions, state: ToolRunState): ToolFunction {
  return async (effectiveArgs, ctx) => {
    state.toolUuid = ctx.toolUuid;
    if (source === "skill") markSkillLoad(run.settings.runtime, ctx.toolUuid, call.name, effectiveArgs);
    if (opts.shortCircuit)
      return suspensionOf(opts.shortCircuit, {
        result: opts.shortCircuit as unknown as Json,
        annotation: { short_circuit: "beforeTool" },
      });
    const argsObject = (
      typeof effectiveArgs === "object" && effectiveArgs !== null && !Array.isArray(effectiveArgs) ? effectiveArgs : {}
    ) as Record<string, unknown>;
    const toolCtx: { signal: AbortSignal; toolCallId: string; toolUuid: string; answer?: Answer } = {
      signal: ctx.signal,
      toolCallId: call.id,
      toolUuid: ctx.toolUuid,
    };
    if (opts.answer) toolCtx.answer = opts.answer;
    const unparseable = source !== "relay" ? invalidArgumentsText(call.arguments) : undefined;
    if (unparseable !== undefined) {
      // The provider sent arguments that are not JSON: say so, rather than run the tool on `{}`.
      return { result: { output: `invalid arguments for ${call.name}: not valid JSON (${unparseable})`, isError: true } };
    }
    let result = await run.toolkit.execute(call.name, argsObject, toolCtx);
    if (result.isError && result.error !== undefined) {
      // The tool threw: the call fails with what it threw, its end records the error result the
      // model still reads (below).
      const { error, ...read } = result;
      state.failed = { error, result: read };
      throw new CallFailure(error, read as unknown as Json);
    }
    const req = pendingOf(result);
    // A tool cannot know its own call id: stamp it (and the raw arguments text) here, before the runtime records the suspension.
    if (req && isRelayRequest(req)) {
      result = { ...result, metadata: { ...result.metadata, pending: stampRelayRequest(req, call.id, call.arguments) } };
    }
    // The annotation is observability data: it goes to the end event's profile, not into the model's result.
    const { annotation, ...plain } = result;
    return suspensionOf(
      result,
      annotation === undefined
        ? { result: plain as unknown as Json }
        : { result: plain as unknown as Json, annotation: annotation as Json },
    );
  };
}

/** One `runtime.executeTool` call for a loop tool call. */
async function executeManaged(
  run: RunContext,
  call: ParsedToolCall,
  args: Record<string, unknown>,
  turn: number,
  opts: ManagedOptions = {},
): Promise<{ result: ToolResult; toolUuid: string; suspended?: Request }> {
  const source = run.toolkit.get(call.name)?.source ?? "custom";
  const state: ToolRunState = { toolUuid: "" };
  const outcome = await run.settings.runtime
    .executeTool(call.name, args as Json, toolFunction(run, call, source, opts, state), {
      toolCallId: call.id,
      attributes: REMOTE_SOURCES.has(source) ? ["remote"] : [],
      metadata: toolMetadata(run, call, turn, opts.retryOf),
      signal: run.signal,
    })
    .catch((error: unknown) => {
      // A guardrail's refusal is the model's to read, as any tool error is: the run goes on. The
      // runtime has already recorded the guardrail scope and its rejection mark.
      if (error instanceof GuardrailRejectedError) return refusal(error);
      if (state.failed && error === state.failed.error) return { result: state.failed.result as unknown as Json };
      throw error;
    });
  // The runtime hands the suspension back; an execution intercept may have resolved it.
  const suspended = isRequest(outcome.pending) ? outcome.pending : undefined;
  const { toolUuid } = state;
  return suspended ? { result: toToolResult(outcome.result), toolUuid, suspended } : { result: toToolResult(outcome.result), toolUuid };
}

/** What the model reads when a guardrail refuses a tool call. */
function refusal(error: GuardrailRejectedError): ToolExecutionResult {
  return { result: { output: `tool call refused by guardrail "${error.guardrail}": ${error.reason}`, isError: true } };
}

/** A suspending tool result goes to the runtime as a first-class suspension: the tool scope ends pending. */
function suspensionOf(result: ToolResult, execution: ToolExecutionResult): ToolExecutionResult {
  const req = pendingOf(result);
  return req ? { ...execution, pending: req as unknown as JsonObject } : execution;
}

function recordToolMetric(
  run: RunContext,
  call: ParsedToolCall,
  turn: number,
  started: number,
  result: ToolResult,
  suspended: boolean,
): void {
  const metric = {
    event: "tool" as const,
    tool: call.name,
    source: run.toolkit.get(call.name)?.source ?? "custom",
    isError: suspended ? false : result.isError,
    ms: Date.now() - started,
    runUuid: run.runUuid,
    turn,
    toolCallId: call.id,
  };
  emitMetric(run.settings, suspended ? { ...metric, pending: true } : metric);
}

async function afterTool(
  run: RunContext,
  call: ParsedToolCall,
  args: Record<string, unknown>,
  turn: number,
  result: ToolResult,
): Promise<ToolResult> {
  const r = await run.settings.hooks.afterTool({ name: call.name, args, result, id: call.id, turn });
  return r.result ?? result;
}

/**
 * Runs one tool call of a turn: hooks, the managed execution, and — when the result
 * suspends — in-process resolution through `waitFor`, or a suspended slot for a durable halt.
 * `useWaitFor: false` forces the durable path (resume repair).
 */
export async function runToolCall(run: RunContext, call: ParsedToolCall, turn: number, useWaitFor = true): Promise<CallSlot> {
  const started = Date.now();
  const before = await run.settings.hooks.beforeTool({ name: call.name, args: call.args, id: call.id, turn });
  const args = before.args ?? call.args;
  const first = before.result
    ? await executeManaged(run, call, args, turn, { shortCircuit: toToolResult(before.result) })
    : await executeManaged(run, call, args, turn);
  const req = first.suspended;
  if (!req) {
    const result = before.result ? first.result : await afterTool(run, call, args, turn, first.result);
    recordToolMetric(run, call, turn, started, result, false);
    return { call, args, result, toolUuid: first.toolUuid };
  }
  recordToolMetric(run, call, turn, started, first.result, true);
  const waitFor = run.settings.waitFor;
  if (!waitFor || !useWaitFor) return { call, args, result: first.result, suspended: req, toolUuid: first.toolUuid };
  run.emit?.({ type: "pending", request: req });
  // waitFor may answer synchronously or with a promise; a synchronous throw rejects like a promise would.
  const answer = await raceAbort(
    Promise.resolve().then(() => waitFor(req)),
    run.signal,
  );
  // An answer to some other request would resolve the wrong call: abort the run, like a waitFor rejection.
  if (answer?.id !== req.id) {
    throw new Error(`waitFor answered request "${String(answer?.id)}" but the pending request is "${req.id}"`);
  }
  return resolveWithAnswer(run, call, args, turn, req, answer, first.toolUuid);
}

/**
 * Re-executes a suspended call once with its answer. `!ok` is a declined result (relay tools
 * word it themselves); a second suspension is `unresolved`, never another wait.
 */
export async function resolveWithAnswer(
  run: RunContext,
  call: ParsedToolCall,
  args: Record<string, unknown>,
  turn: number,
  req: Request,
  answer: Answer,
  suspendedToolUuid: string,
): Promise<CallSlot> {
  const data: Record<string, Json> = { id: answer.id, ok: answer.ok };
  if (answer.reason) data.reason = answer.reason;
  if (suspendedToolUuid) run.settings.runtime.mark(TOOL_ANSWER_MARK, { parent: { uuid: suspendedToolUuid }, data });
  const relay = run.toolkit.get(call.name)?.source === "relay";
  if (!answer.ok && !relay) return { call, args, result: { output: `declined/expired: ${req.prompt}`, isError: true } };
  const started = Date.now();
  const retryOpts: ManagedOptions = { answer };
  if (suspendedToolUuid) retryOpts.retryOf = suspendedToolUuid;
  const second = await executeManaged(run, call, args, turn, retryOpts);
  if (second.suspended) {
    recordToolMetric(run, call, turn, started, second.result, true);
    return { call, args, result: { output: `unresolved: ${req.prompt}`, isError: true }, toolUuid: second.toolUuid };
  }
  const result = await afterTool(run, call, args, turn, second.result);
  recordToolMetric(run, call, turn, started, result, false);
  return { call, args, result, toolUuid: second.toolUuid };
}

/** A short preview of raw arguments text that does not parse as JSON; undefined when it parses or is empty. */
function invalidArgumentsText(raw: string): string | undefined {
  if (raw.trim() === "") return undefined;
  try {
    JSON.parse(raw);
    return undefined;
  } catch {
    return raw.length > 60 ? `${raw.slice(0, 60)}…` : raw;
  }
}
