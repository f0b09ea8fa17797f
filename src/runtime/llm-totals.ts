import type { JsonObject } from "../events/json.js";
import type { ScopeStack } from "../events/scope-stack.js";
import { PROFILE_TOTAL_COST, PROFILE_TOTAL_USAGE } from "../events/wire-names.js";
import type { LlmCost, WireUsage } from "../wire/index.js";

/** Rounded to 1e-12 USD, so a sum of costs does not show float noise. */
function round(value: number): number {
  return Math.round(value * 1e12) / 1e12;
}

/** The running totals of one rolling-up scope, and the enclosing one its calls also count in. */
class Totals {
  private calls = 0;
  private pricedCalls = 0;
  private cost = 0;
  private usageCalls = 0;
  private input = 0;
  private output = 0;
  private cacheRead: number | undefined;
  private cacheWrite: number | undefined;
  private reasoning: number | undefined;

  constructor(readonly parent: Totals | undefined) {}

  add(cost: LlmCost | undefined, usage: WireUsage | undefined): void {
    this.calls++;
    if (cost !== undefined) {
      this.pricedCalls++;
      this.cost += cost.total;
    }
    if (usage === undefined) return;
    this.usageCalls++;
    this.input += usage.inputTokens ?? 0;
    this.output += usage.outputTokens ?? 0;
    if (usage.cacheReadTokens !== undefined) this.cacheRead = (this.cacheRead ?? 0) + usage.cacheReadTokens;
    if (usage.cacheWriteTokens !== undefined) this.cacheWrite = (this.cacheWrite ?? 0) + usage.cacheWriteTokens;
    if (usage.reasoningTokens !== undefined) this.reasoning = (this.reasoning ?? 0) + usage.reasoningTokens;
  }

  /** `profile` with the totals, when any call counted. A total of no priced call is absent, never 0. */
  profile(profile: JsonObject | null): JsonObject | null {
    if (this.calls === 0) return profile;
    const out: JsonObject = { ...(profile ?? {}) };
    if (this.pricedCalls > 0) {
      out[PROFILE_TOTAL_COST] = {
        total: round(this.cost),
        currency: "USD",
        priced_calls: this.pricedCalls,
        unpriced_calls: this.calls - this.pricedCalls,
      };
    }
    if (this.usageCalls > 0) {
      const usage: JsonObject = { input_tokens: this.input, output_tokens: this.output };
      if (this.cacheRead !== undefined) usage.cache_read_tokens = this.cacheRead;
      if (this.cacheWrite !== undefined) usage.cache_write_tokens = this.cacheWrite;
      if (this.reasoning !== undefined) usage.reasoning_tokens = this.reasoning;
      usage.calls = this.usageCalls;
      out[PROFILE_TOTAL_USAGE] = usage;
    }
    return out;
  }
}

/** An open scope: its own totals when it rolls up, and the nearest rolling-up scope at or above it. */
interface OpenEntry {
  own: Totals | undefined;
  nearest: Totals | undefined;
}

/**
 * The roll-up of `llm` calls into the scopes that carry their totals: every `agent` scope and the
 * outermost scope of a trace. Each call that ends counts in every such scope above it (nested
 * agents each count their own and their sub-agents' calls); the totals go on the scope's end.
 */
export class LlmTotals {
  /** Every open scope of the runtime, by uuid (removed when it ends). */
  private readonly open = new Map<string, OpenEntry>();

  /** The entry of the nearest open scope enclosing a call: its parent, else the innermost open scope on its stack. */
  private enclosing(parentUuid: string | null, stack: ScopeStack): OpenEntry | undefined {
    const direct = parentUuid === null ? undefined : this.open.get(parentUuid);
    if (direct !== undefined) return direct;
    const frames = stack.frames;
    for (let i = frames.length - 1; i >= 1; i--) {
      const entry = this.open.get(frames[i]!.uuid);
      if (entry !== undefined) return entry;
    }
    return undefined;
  }

  /** A scope started: it rolls up when it is an agent or nothing of this runtime encloses it. */
  opened(uuid: string, category: string, parentUuid: string | null, stack: ScopeStack): void {
    const outer = this.enclosing(parentUuid, stack);
    const own = category === "agent" || outer === undefined ? new Totals(outer?.nearest) : undefined;
    this.open.set(uuid, { own, nearest: own ?? outer?.nearest });
  }

  /** An `llm` call ended (priced or not): it counts in every rolling-up scope above it. */
  ended(parentUuid: string | null, stack: ScopeStack, cost: LlmCost | undefined, usage: WireUsage | undefined): void {
    for (let t = this.enclosing(parentUuid, stack)?.nearest; t !== undefined; t = t.parent) t.add(cost, usage);
  }

  /** A scope ends: its profile with its totals (when it rolls up), and it is forgotten. */
  closed(uuid: string, profile: JsonObject | null): JsonObject | null {
    const entry = this.open.get(uuid);
    if (entry === undefined) return profile;
    this.open.delete(uuid);
    return entry.own === undefined ? profile : entry.own.profile(profile);
  }
}
