import type { WireUsage } from "../../src/wire/index.js";
import { cachedTokensOf } from "../../src/wire/index.js";
import { sharingPayloads } from "./content.js";
import type { AtifFinalMetrics, AtifMetrics, AtifStep } from "./types.js";

function count(value: number | undefined): number | undefined {
  return value !== undefined && Number.isInteger(value) && value >= 0 ? value : undefined;
}

/**
 * Per-step metrics from a decoded usage: `prompt_tokens` includes cached tokens in every
 * dialect, `cached_tokens` is cache reads plus writes, `cost_usd` the computed cost (else one the
 * provider reported), and the usage keys the codec does not name go to `extra`.
 */
export function metricsFromUsage(usage: WireUsage | undefined, costUsd?: number): AtifMetrics | undefined {
  const m: AtifMetrics = {};
  const prompt = count(usage?.inputTokens);
  const completion = count(usage?.outputTokens);
  const cached = count(cachedTokensOf(usage));
  if (prompt !== undefined) m.prompt_tokens = prompt;
  if (completion !== undefined) m.completion_tokens = completion;
  if (cached !== undefined) m.cached_tokens = cached;
  const cost = costUsd ?? usage?.costUsd;
  if (cost !== undefined) m.cost_usd = cost;
  if (usage?.extra)
    m.extra = (sharingPayloads() ? usage.extra : JSON.parse(JSON.stringify(usage.extra))) as NonNullable<AtifMetrics["extra"]>;
  return Object.keys(m).length > 0 ? m : undefined;
}

/** Totals over the steps that carry each field; `total_steps` is always the step count (so no `notes`). */
export function finalMetricsOf(steps: AtifStep[]): AtifFinalMetrics {
  const out: AtifFinalMetrics = {};
  const add = (
    key: "total_prompt_tokens" | "total_completion_tokens" | "total_cached_tokens" | "total_cost_usd",
    v: number | undefined,
  ): void => {
    if (v !== undefined) out[key] = (out[key] ?? 0) + v;
  };
  for (const step of steps) {
    add("total_prompt_tokens", step.metrics?.prompt_tokens);
    add("total_completion_tokens", step.metrics?.completion_tokens);
    add("total_cached_tokens", step.metrics?.cached_tokens);
    add("total_cost_usd", step.metrics?.cost_usd);
  }
  out.total_steps = steps.length;
  return out;
}
