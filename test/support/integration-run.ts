import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { createRuntime, type AtofEvent, type Runtime, type ScopeEvent } from "relaytrace";
import { atofToAtif, type AtifTrajectory, type ProjectionName } from "relaytrace/exporters";
import { EventCapture, SpanCapture } from "relaytrace/testing";

/**
 * What every integration test needs: a runtime with an event capture and a span capture, the
 * same intercept, sanitizer and guardrail registered on it, and the ATIF projection of the run.
 */
export interface IntegrationRun {
  runtime: Runtime;
  /** Flushes, then returns every event, the spans of the chosen projection and the ATIF trajectories. */
  finish(): Promise<{ events: AtofEvent[]; spans: ReadableSpan[]; trajectories: AtifTrajectory[] }>;
}

/** The annotation the execution intercept adds to every successful tool call. */
export const ANNOTATION = { source: "weather-cache" };
/** What the request sanitizer puts in place of a `city` argument in exported events. */
export const MASKED = "[city]";
/** The reason the guardrail refuses any call whose `user` argument is "root". */
export const REFUSAL = "root access refused";

export function integrationRun(projection: ProjectionName = "gen_ai"): IntegrationRun {
  const runtime = createRuntime();
  const events = new EventCapture();
  events.register(runtime);
  const spans = new SpanCapture({ projection });
  spans.register(runtime);
  runtime.registerToolExecutionIntercept("annotate", 10, async (args, next) => ({ ...(await next(args)), annotation: ANNOTATION }));
  runtime.registerToolSanitizeRequest("mask-city", 0, (_tool, args) =>
    args !== null && typeof args === "object" && !Array.isArray(args) && "city" in args ? { ...args, city: MASKED } : args,
  );
  runtime.registerToolConditionalGuardrail("no-root", 0, (_tool, args) =>
    args !== null && typeof args === "object" && !Array.isArray(args) && args["user"] === "root" ? REFUSAL : null,
  );
  return {
    runtime,
    async finish() {
      await runtime.flush();
      const all = [...events.events];
      return {
        events: all,
        spans: await spans.spans(),
        trajectories: atofToAtif(all, { agent: { name: "test-agent", version: "1.0.0" } }),
      };
    },
  };
}

export const scopesOf = (events: AtofEvent[]) => events.filter((e): e is ScopeEvent => e.kind === "scope");
export const ends = (events: AtofEvent[], category: string) =>
  scopesOf(events).filter((e) => e.scope_category === "end" && e.category === category);
export const starts = (events: AtofEvent[], category: string) =>
  scopesOf(events).filter((e) => e.scope_category === "start" && e.category === category);
export const attr = (span: ReadableSpan, key: string) => span.attributes[key];
