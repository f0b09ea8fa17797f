import { isJsonObject, type Json, type JsonObject } from "../events/json.js";
import { statusCodeOf } from "../events/end-status.js";
import { parseTimestamp } from "../events/timestamp.js";
import type { AtofEvent, ScopeEvent } from "../events/types.js";
import { recordedCost } from "../wire/pricing.js";
import { codecForEvent } from "../wire/registry.js";
import { jsonSize } from "./json-size.js";

/** Token counts of one model call, as its reply reported them. */
export interface StepUsage {
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  costUsd?: number;
}

/** One tool call of a step: what a diff compares (its id is not: ids differ between runs). */
export interface StepToolCall {
  name: string;
  args: Json;
  /** the recorded result (the end's data); undefined while the call has not ended */
  result: Json | undefined;
  status: string;
}

/** One step of a run: a model call and the tool calls that followed it, until the next model call. */
export interface RunStep {
  /** 1-based: the n-th model call; 0 holds tool calls made before any model call */
  step: number;
  model: {
    /** the `llm` scope's uuid (for readers that point at the call; never compared) */
    uuid: string;
    status: string;
    /** the reply's text; undefined when no reply was recorded */
    text: string | undefined;
    usage: StepUsage;
    /** microseconds from start to end */
    latencyUs: number | undefined;
  } | null;
  tools: StepToolCall[];
}

function statusOf(end: ScopeEvent): string {
  return statusCodeOf(end) ?? "UNSET";
}

function micros(event: AtofEvent): number | undefined {
  try {
    return parseTimestamp(event.timestamp);
  } catch {
    return undefined;
  }
}

function replyOf(end: ScopeEvent): { text: string | undefined; usage: StepUsage } {
  const data = end.data;
  const usage: StepUsage = {};
  const cost = recordedCost(end.category_profile);
  if (cost !== undefined) usage.costUsd = cost.total;
  const codec = isJsonObject(data)
    ? codecForEvent({ dataSchema: end.data_schema, name: end.name, body: data, which: "response" })
    : undefined;
  if (codec === undefined || !isJsonObject(data) || !codec.looksLikeResponse(data)) return { text: undefined, usage };
  const reply = codec.decodeResponse(data);
  const u = reply.usage;
  if (u?.inputTokens !== undefined) usage.inputTokens = u.inputTokens;
  if (u?.outputTokens !== undefined) usage.outputTokens = u.outputTokens;
  if (u?.totalTokens !== undefined) usage.totalTokens = u.totalTokens;
  return { text: reply.text, usage };
}

/** A copy of `value` without `keys` (a copy only when one is there). */
function without(value: JsonObject, keys: readonly string[]): JsonObject {
  if (!keys.some((k) => k in value)) return value;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) if (!keys.includes(k)) out[k] = v;
  return out;
}

/**
 * A tool result as a diff compares it. A suspended call's result carries its pending request,
 * whose id, expiry and the provider's tool call ids are new in every run: they are left out.
 */
function comparableResult(data: Json): Json {
  if (!isJsonObject(data) || !isJsonObject(data["metadata"]) || !isJsonObject(data["metadata"]["pending"])) return data;
  const pending = without(data["metadata"]["pending"], ["id", "expiresAt"]);
  const request = isJsonObject(pending["data"]) ? pending["data"] : undefined;
  const calls = request && Array.isArray(request["calls"]) ? request["calls"] : undefined;
  const stripped = calls
    ? { ...pending, data: { ...request, calls: calls.map((c) => (isJsonObject(c) ? without(c, ["id"]) : c)) } }
    : pending;
  return { ...data, metadata: { ...data["metadata"], pending: stripped } };
}

interface OpenScope {
  step: RunStep;
  /** when the scope started (µs), for a model call's latency */
  startUs: number | undefined;
  tool?: StepToolCall;
}

/**
 * How long a step whose call is still open is waited for: once more than this many later steps
 * (or about this many characters of step content) are held behind it, it is handed out as it
 * stands, its open calls unfinished, as if the input had ended there.
 */
export const STEP_WAIT_STEPS = 64;
export const STEP_WAIT_CHARS = 4 * 1024 * 1024;

/**
 * Cuts a stream of ATOF events into steps, in bounded memory: a step is handed out once the next
 * model call has started and every scope of the step has ended (or at the end of the input), so
 * only the steps still in flight are held. A call that never ends (a crashed run at the head of
 * an append-mode file) holds back the steps after it only up to STEP_WAIT_STEPS / STEP_WAIT_CHARS:
 * then its step goes out unfinished (no result, status UNSET) and an end that comes later is
 * ignored. Memory does not depend on where an unended call sits.
 */
export class StepBuilder {
  private readonly pending: RunStep[] = [];
  private readonly open = new Map<string, OpenScope>();
  /** the uuids of each held step's calls that have not ended */
  private readonly openOf = new Map<RunStep, Set<string>>();
  /** each held step's content size (jsonSize), and their sum */
  private readonly sizeOf = new Map<RunStep, number>();
  private heldChars = 0;
  private current: RunStep = { step: 0, model: null, tools: [] };
  private finished = false;

  constructor(
    private readonly waitSteps = STEP_WAIT_STEPS,
    private readonly waitChars = STEP_WAIT_CHARS,
  ) {
    this.hold(this.current);
  }

  private hold(step: RunStep): void {
    this.pending.push(step);
    this.sizeOf.set(step, 0);
  }

  private grow(step: RunStep, chars: number): void {
    const size = this.sizeOf.get(step);
    if (size === undefined) return; // handed out already
    this.sizeOf.set(step, size + chars);
    this.heldChars += chars;
  }

  push(event: AtofEvent): void {
    if (event.kind !== "scope" || (event.category !== "llm" && event.category !== "tool")) return;
    if (event.scope_category === "start") this.start(event);
    else this.end(event);
  }

  private start(event: ScopeEvent): void {
    if (event.category === "llm") {
      this.current = {
        step: this.current.step + 1,
        model: { uuid: event.uuid, status: "UNSET", text: undefined, usage: {}, latencyUs: undefined },
        tools: [],
      };
      this.hold(this.current);
      this.track(event, this.current);
      return;
    }
    const tool: StepToolCall = { name: event.name, args: event.data, result: undefined, status: "UNSET" };
    this.current.tools.push(tool);
    this.grow(this.current, jsonSize(event.data));
    this.track(event, this.current, tool);
  }

  private track(start: ScopeEvent, step: RunStep, tool?: StepToolCall): void {
    this.open.set(start.uuid, { step, startUs: micros(start), ...(tool ? { tool } : {}) });
    let uuids = this.openOf.get(step);
    if (uuids === undefined) this.openOf.set(step, (uuids = new Set()));
    uuids.add(start.uuid);
  }

  private end(event: ScopeEvent): void {
    const open = this.open.get(event.uuid);
    if (open === undefined) return;
    this.open.delete(event.uuid);
    this.openOf.get(open.step)?.delete(event.uuid);
    const status = statusOf(event);
    if (open.tool) {
      open.tool.result = comparableResult(event.data);
      open.tool.status = status;
      this.grow(open.step, jsonSize(open.tool.result));
      return;
    }
    const ended = micros(event);
    const reply = replyOf(event);
    open.step.model = {
      uuid: event.uuid,
      status,
      text: reply.text,
      usage: reply.usage,
      latencyUs: open.startUs !== undefined && ended !== undefined ? ended - open.startUs : undefined,
    };
    this.grow(open.step, reply.text?.length ?? 0);
  }

  /** The input ended: every step still held is complete as far as it will ever be. */
  finish(): void {
    this.finished = true;
  }

  private openCount(step: RunStep): number {
    return this.openOf.get(step)?.size ?? 0;
  }

  /** Whether more is held behind the head than a step with an open call is waited for. */
  private overdue(): boolean {
    return this.pending.length - 1 > this.waitSteps || this.heldChars > this.waitChars;
  }

  /** The step leaves the builder: its calls still open are ignored from now on. */
  private release(step: RunStep): void {
    for (const uuid of this.openOf.get(step) ?? []) this.open.delete(uuid);
    this.openOf.delete(step);
    this.heldChars -= this.sizeOf.get(step) ?? 0;
    this.sizeOf.delete(step);
  }

  /** The steps that are complete (or waited for long enough), in order; each is handed out once. */
  *drain(): Generator<RunStep> {
    while (this.pending.length > 0) {
      const head = this.pending[0]!;
      if (!this.finished) {
        if (this.pending.length === 1) return; // the step being built: the next model call may still add to it
        if (this.openCount(head) > 0 && !this.overdue()) return;
      }
      this.pending.shift();
      this.release(head);
      yield head;
    }
  }
}

/** The steps of an array of events. */
export function runSteps(events: Iterable<AtofEvent>): RunStep[] {
  const builder = new StepBuilder();
  const out: RunStep[] = [];
  for (const event of events) {
    builder.push(event);
    out.push(...builder.drain());
  }
  builder.finish();
  out.push(...builder.drain());
  return out;
}

/** The steps of a stream of events, each as soon as it is complete. */
export async function* streamRunSteps(events: AsyncIterable<AtofEvent>): AsyncGenerator<RunStep> {
  const builder = new StepBuilder();
  for await (const event of events) {
    builder.push(event);
    yield* builder.drain();
  }
  builder.finish();
  yield* builder.drain();
}
