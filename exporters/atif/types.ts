import type { Json, JsonObject } from "../../src/events/json.js";

/** ATIF v1.7 document types (wire keys are snake_case, as in the files). */

export type AtifSchemaVersion =
  "ATIF-v1.0" | "ATIF-v1.1" | "ATIF-v1.2" | "ATIF-v1.3" | "ATIF-v1.4" | "ATIF-v1.5" | "ATIF-v1.6" | "ATIF-v1.7";

export interface AtifImageSource {
  media_type: "image/jpeg" | "image/png" | "image/gif" | "image/webp";
  path: string;
}

/** One part of a multimodal message: text, or an image referenced by path. */
export type AtifContentPart = { type: "text"; text: string } | { type: "image"; source: AtifImageSource };

export type AtifMessage = string | AtifContentPart[];

/** A tool call an agent step made. */
export interface AtifToolCall {
  tool_call_id: string;
  function_name: string;
  arguments: JsonObject;
  extra?: JsonObject;
}

export interface AtifSubagentTrajectoryRef {
  trajectory_id?: string;
  trajectory_path?: string;
  session_id?: string;
  extra?: JsonObject;
}

/** One result in a step's observation (a tool output, or references to subagent trajectories). */
export interface AtifObservationResult {
  source_call_id?: string;
  content?: AtifMessage | null;
  subagent_trajectory_ref?: AtifSubagentTrajectoryRef[];
  extra?: JsonObject;
}

/** What the environment returned to a step, e.g. its tool results. */
export interface AtifObservation {
  results: AtifObservationResult[];
}

/** Token and cost metrics of one step. */
export interface AtifMetrics {
  prompt_tokens?: number;
  completion_tokens?: number;
  cached_tokens?: number;
  cost_usd?: number;
  prompt_token_ids?: number[];
  completion_token_ids?: number[];
  logprobs?: number[];
  extra?: JsonObject;
}

/** Totals over a trajectory's steps. */
export interface AtifFinalMetrics {
  total_prompt_tokens?: number;
  total_completion_tokens?: number;
  total_cached_tokens?: number;
  total_cost_usd?: number;
  total_steps?: number;
  extra?: JsonObject;
}

/** One step of a trajectory: a system, user or agent turn. */
export interface AtifStep {
  step_id: number;
  timestamp?: string;
  source: "system" | "user" | "agent";
  model_name?: string;
  reasoning_effort?: string | number;
  message: AtifMessage;
  reasoning_content?: string;
  tool_calls?: AtifToolCall[];
  observation?: AtifObservation;
  metrics?: AtifMetrics;
  is_copied_context?: boolean;
  llm_call_count?: number;
  extra?: JsonObject;
}

/** The agent a trajectory describes, as written in the document. */
export interface AtifAgent {
  name: string;
  version: string;
  model_name?: string;
  tool_definitions?: JsonObject[];
  extra?: JsonObject;
}

/** One ATIF document: an agent's run as numbered steps. */
export interface AtifTrajectory {
  schema_version: AtifSchemaVersion;
  session_id?: string;
  trajectory_id?: string;
  agent: AtifAgent;
  steps: AtifStep[];
  notes?: string;
  final_metrics?: AtifFinalMetrics;
  continued_trajectory_ref?: string;
  subagent_trajectories?: AtifTrajectory[];
  extra?: JsonObject;
}

/** The agent description on the TS API (camelCase). */
export interface AtifAgentInfo {
  name: string;
  version: string;
  modelName?: string;
  /** OpenAI function shape: `{type: "function", function: {name, description, parameters}}`. */
  toolDefinitions?: JsonObject[];
}

/** Options of `atofToAtif` (the exporter passes its own through). */
export interface AtofToAtifOptions {
  /**
   * The root agent of each trajectory. Default: the top-level agent scope's name, and its
   * metadata `agent_version` (else `"0.0.0"`).
   */
  agent?: AtifAgentInfo;
  /** Used when the agent scope's metadata carries no `session_id`. */
  sessionId?: string;
  /** Keep marks in `extra.marks` (default true). */
  includeMarks?: boolean;
  /** Written to `extra.invocation.framework` of agent steps (default "relaytrace"). */
  framework?: string;
  /**
   * What bounds a trajectory: agent scopes, or root scopes (when the stream has no agent scope).
   * Default: decided from the events given; a caller mapping one part of a stream at a time
   * passes what the whole stream decides.
   */
  boundaries?: "agent" | "root";
  /**
   * For a caller mapping one part of a stream at a time: the trajectory (boundary uuid) that owns
   * a scope of an earlier part, so a resumed run still refers back to it.
   */
  ownerOutside?: (scopeUuid: string) => string | undefined;
}

export type { Json, JsonObject };
