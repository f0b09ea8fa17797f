/**
 * JSON Schema (draft-07) for ATIF v1.7 documents. Every object is closed, as in the ATIF reference
 * models; free-form data belongs in the `extra` objects. Rules a schema cannot express
 * (step numbering, agent-only keys, call id resolution…) live in `rules.ts`.
 */

const extra = { type: "object" } as const;
const nonNegativeInt = { type: "integer", minimum: 0 } as const;

/** The ATIF v1.7 JSON Schema (draft-07) that `validateAtif` checks documents against. */
export const ATIF_SCHEMA = {
  $schema: "http://json-schema.org/draft-07/schema#",
  $id: "https://relaytrace.dev/schemas/atif-v1.7.json",
  title: "ATIF v1.7 trajectory",
  $ref: "#/definitions/trajectory",
  definitions: {
    imageSource: {
      type: "object",
      additionalProperties: false,
      required: ["media_type", "path"],
      properties: {
        media_type: { enum: ["image/jpeg", "image/png", "image/gif", "image/webp"] },
        path: { type: "string" },
      },
    },
    contentPart: {
      type: "object",
      additionalProperties: false,
      required: ["type"],
      properties: {
        type: { enum: ["text", "image"] },
        text: { type: "string" },
        source: { $ref: "#/definitions/imageSource" },
      },
      // text iff type text; source iff type image
      if: { properties: { type: { const: "text" } } },
      then: { required: ["text"], not: { required: ["source"] } },
      else: { required: ["source"], not: { required: ["text"] } },
    },
    message: {
      anyOf: [{ type: "string" }, { type: "array", items: { $ref: "#/definitions/contentPart" } }],
    },
    toolCall: {
      type: "object",
      additionalProperties: false,
      required: ["tool_call_id", "function_name", "arguments"],
      properties: {
        tool_call_id: { type: "string" },
        function_name: { type: "string" },
        arguments: { type: "object" },
        extra,
      },
    },
    subagentRef: {
      type: "object",
      additionalProperties: false,
      anyOf: [{ required: ["trajectory_id"] }, { required: ["trajectory_path"] }],
      properties: {
        trajectory_id: { type: "string" },
        trajectory_path: { type: "string" },
        session_id: { type: "string" },
        extra,
      },
    },
    observationResult: {
      type: "object",
      additionalProperties: false,
      properties: {
        source_call_id: { type: ["string", "null"] },
        content: {
          anyOf: [{ type: "null" }, { $ref: "#/definitions/message" }],
        },
        subagent_trajectory_ref: { type: "array", items: { $ref: "#/definitions/subagentRef" } },
        extra,
      },
    },
    observation: {
      type: "object",
      additionalProperties: false,
      required: ["results"],
      properties: {
        results: { type: "array", items: { $ref: "#/definitions/observationResult" } },
      },
    },
    metrics: {
      type: "object",
      additionalProperties: false,
      properties: {
        prompt_tokens: nonNegativeInt,
        completion_tokens: nonNegativeInt,
        cached_tokens: nonNegativeInt,
        cost_usd: { type: "number", minimum: 0 },
        prompt_token_ids: { type: "array", items: { type: "integer" } },
        completion_token_ids: { type: "array", items: { type: "integer" } },
        logprobs: { type: "array", items: { type: "number" } },
        extra,
      },
    },
    finalMetrics: {
      type: "object",
      additionalProperties: false,
      properties: {
        total_prompt_tokens: nonNegativeInt,
        total_completion_tokens: nonNegativeInt,
        total_cached_tokens: nonNegativeInt,
        total_cost_usd: { type: "number", minimum: 0 },
        total_steps: nonNegativeInt,
        extra,
      },
    },
    step: {
      type: "object",
      additionalProperties: false,
      required: ["step_id", "source", "message"],
      properties: {
        step_id: { type: "integer", minimum: 1 },
        timestamp: { type: "string" },
        source: { enum: ["system", "user", "agent"] },
        model_name: { type: "string" },
        reasoning_effort: { type: ["string", "number"] },
        message: { $ref: "#/definitions/message" },
        reasoning_content: { type: "string" },
        tool_calls: { type: "array", items: { $ref: "#/definitions/toolCall" } },
        observation: { $ref: "#/definitions/observation" },
        metrics: { $ref: "#/definitions/metrics" },
        is_copied_context: { type: "boolean" },
        llm_call_count: nonNegativeInt,
        extra,
      },
    },
    agent: {
      type: "object",
      additionalProperties: false,
      required: ["name", "version"],
      properties: {
        name: { type: "string" },
        version: { type: "string" },
        model_name: { type: "string" },
        tool_definitions: { type: "array", items: { type: "object" } },
        extra,
      },
    },
    trajectory: {
      type: "object",
      additionalProperties: false,
      required: ["schema_version", "agent", "steps"],
      properties: {
        schema_version: {
          enum: ["ATIF-v1.0", "ATIF-v1.1", "ATIF-v1.2", "ATIF-v1.3", "ATIF-v1.4", "ATIF-v1.5", "ATIF-v1.6", "ATIF-v1.7"],
        },
        session_id: { type: "string" },
        trajectory_id: { type: "string" },
        agent: { $ref: "#/definitions/agent" },
        steps: { type: "array", minItems: 1, items: { $ref: "#/definitions/step" } },
        notes: { type: "string" },
        final_metrics: { $ref: "#/definitions/finalMetrics" },
        continued_trajectory_ref: { type: "string" },
        subagent_trajectories: { type: "array", items: { $ref: "#/definitions/trajectory" } },
        extra,
      },
    },
  },
} as const;
