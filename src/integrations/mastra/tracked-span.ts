import type { AnyExportedSpan } from "@mastra/core/observability";
import type { LlmHandle, ToolHandle } from "../../runtime/types.js";
import type { DetachedScope } from "../detached-scopes.js";
import type { Generation } from "./model-call.js";

/** One model step: its provider call, and the tool calls that started while that call was still open. */
export interface Step {
  inference?: TrackedSpan;
  deferred: TrackedSpan[];
  firstToolStart?: Date;
  sawInference: boolean;
  /** A `model_step` whose provider call was not exported: the step itself is recorded as the call. */
  standsForCall: boolean;
}

/** A Mastra span the exporter follows: what it became in relaytrace, and the step or conversation it belongs to. */
export interface TrackedSpan {
  span: AnyExportedSpan;
  kind: "scope" | "llm" | "tool";
  parentUuid: string;
  uuid?: string;
  scope?: DetachedScope;
  llm?: LlmHandle;
  tool?: ToolHandle;
  generation?: Generation;
  step?: Step;
  /** A tool call waiting for its step's provider call to end, so the call is recorded before its tools. */
  deferredIn?: Step;
  /** The end a deferred tool call already had. */
  ended?: AnyExportedSpan;
}
