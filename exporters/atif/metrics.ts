import { isJsonObject, type Json, type JsonObject } from "../../src/events/json.js";
import type { AtifFinalMetrics, AtifMetrics, AtifStep } from "./types.js";

function count(value: Json | undefined): number | undefined {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 ? value : undefined;
}

function usd(usage: JsonObject): number | undefined {
  for (const key of ["cost_usd", "cost"]) {
    const v = usage[key];
    if (typeof v === "number" && Number.isFinite(v) && v >= 0) return v;
  }
  return undefined;
}

function restOf(usage: JsonObject, consumed: Set<string>): JsonObject | undefined {
  const rest: JsonObject = {};
  for (const [k, v] of Object.entries(usage)) if (!consumed.has(k)) rest[k] = JSON.parse(JSON.stringify(v)) as Json;
  return Object.keys(rest).length > 0 ? rest : undefined;
}

/** Per-step metrics from a response `usage` object, in the OpenAI or the Anthropic dialect. */
export function metricsFromUsage(usage: Json | undefined): AtifMetrics | undefined {
  if (!isJsonObject(usage)) return undefined;
  const m: AtifMetrics = {};
  const consumed = new Set<string>(["cost_usd", "cost"]);
  const anthropic = "input_tokens" in usage || "output_tokens" in usage;
  if (anthropic) {
    const input = count(usage["input_tokens"]);
    const read = count(usage["cache_read_input_tokens"]);
    const created = count(usage["cache_creation_input_tokens"]);
    const output = count(usage["output_tokens"]);
    // Anthropic's input_tokens excludes cache traffic; ATIF's prompt_tokens counts all input.
    if (input !== undefined || read !== undefined || created !== undefined) m.prompt_tokens = (input ?? 0) + (read ?? 0) + (created ?? 0);
    if (output !== undefined) m.completion_tokens = output;
    if (read !== undefined || created !== undefined) m.cached_tokens = (read ?? 0) + (created ?? 0);
    for (const k of ["input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"]) consumed.add(k);
  } else {
    const prompt = count(usage["prompt_tokens"]);
    const completion = count(usage["completion_tokens"]);
    if (prompt !== undefined) m.prompt_tokens = prompt;
    if (completion !== undefined) m.completion_tokens = completion;
    consumed.add("prompt_tokens").add("completion_tokens");
    const details = usage["prompt_tokens_details"];
    if (isJsonObject(details)) {
      const cached = count(details["cached_tokens"]);
      if (cached !== undefined) m.cached_tokens = cached;
      if (Object.keys(details).every((k) => k === "cached_tokens")) consumed.add("prompt_tokens_details");
    }
  }
  const cost = usd(usage);
  if (cost !== undefined) m.cost_usd = cost;
  const extra = restOf(usage, consumed);
  if (extra) m.extra = extra;
  return Object.keys(m).length > 0 ? m : undefined;
}

/** Totals over the steps that carry each field; `total_steps` is always the step count (so no `notes`). */
export function finalMetricsOf(steps: AtifStep[]): AtifFinalMetrics {
  const out: AtifFinalMetrics = {};
  const add = (key: "total_prompt_tokens" | "total_completion_tokens" | "total_cached_tokens" | "total_cost_usd", v: number | undefined): void => {
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
