import type { SpanData } from "@openai/agents-core";
import type { Json, JsonObject } from "../../events/json.js";
import { toJsonSafe } from "../../runtime/json-safe.js";

/**
 * The spans of `@openai/agents-core` that are neither model calls nor tools: the run's task and
 * its turns, an MCP server's tool listing and a voice pipeline's speech group (each a `function`
 * scope), and the voice models' transcription and speech calls (`custom` scopes, subtype the span
 * type, as their bodies are audio rather than messages).
 */

type DataOf<T extends SpanData["type"]> = Extract<SpanData, { type: T }>;
export type StepSpanData = DataOf<"task" | "turn" | "mcp_tools" | "speech_group">;
export type AudioSpanData = DataOf<"transcription" | "speech">;

/** What a scope opens with (the options `openDetached` takes beside its place). */
export interface ScopeOpening {
  input?: Json;
  metadata?: JsonObject;
  categoryProfile?: JsonObject;
}

const SPAN_TYPE = "openai_agents.span_type";

export function stepName(data: StepSpanData): string {
  switch (data.type) {
    case "task":
      return data.name;
    case "turn":
      return `turn ${data.turn}`;
    case "mcp_tools":
      return data.server ? `mcp_tools ${data.server}` : "mcp_tools";
    case "speech_group":
      return "speech_group";
  }
}

export function stepOpening(data: StepSpanData): ScopeOpening {
  const metadata: JsonObject = { [SPAN_TYPE]: data.type };
  if (data.type === "turn") metadata["openai_agents.agent_name"] = data.agent_name;
  if (data.type === "mcp_tools" && data.server !== undefined) metadata["openai_agents.mcp_server"] = data.server;
  if (data.type === "speech_group" && data.input !== undefined) return { metadata, input: data.input };
  return { metadata };
}

/** A transcription (speech to text) or speech (text to speech) model call; audio is summarized, not copied. */
export function audioOpening(data: AudioSpanData): ScopeOpening {
  const categoryProfile: JsonObject = { subtype: data.type };
  if (data.model !== undefined) categoryProfile["model_name"] = data.model;
  const metadata: JsonObject = { [SPAN_TYPE]: data.type };
  if (data.model_config !== undefined) metadata["openai_agents.model_config"] = toJsonSafe(data.model_config);
  if (data.type === "transcription") return { categoryProfile, metadata, input: audioSummary(data.input) };
  return data.input !== undefined ? { categoryProfile, metadata, input: data.input } : { categoryProfile, metadata };
}

/** What a scope ends with: the span's result, and its usage as metadata. */
export function scopeClosing(data: SpanData): { output?: Json; metadata?: JsonObject } {
  switch (data.type) {
    case "guardrail":
      return { output: { triggered: data.triggered } };
    case "agent":
      return data.output_type !== undefined ? { output: { output_type: data.output_type } } : {};
    case "task":
    case "turn":
      return data.usage !== undefined ? { metadata: { "openai_agents.usage": toJsonSafe(data.usage) } } : {};
    case "mcp_tools":
      return data.result !== undefined ? { output: { tools: data.result } } : {};
    case "transcription":
      return data.output !== undefined ? { output: data.output } : {};
    case "speech":
      return { output: audioSummary(data.output) };
    default:
      return {};
  }
}

/** Base64 audio as its format and size: the bytes themselves would swamp every exporter. */
function audioSummary(audio: { data: string; format: string }): JsonObject {
  return { format: audio.format, audio_base64_chars: audio.data.length };
}
