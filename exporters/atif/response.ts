import { isJsonObject, type Json, type JsonObject } from "../../src/events/json.js";
import { cloneJson, unwrapBody } from "./content.js";
import { metricsFromUsage } from "./metrics.js";
import type { AtifContentPart, AtifMessage, AtifMetrics, AtifToolCall } from "./types.js";

/** What one LLM response contributes to its agent step. */
export interface ResponseParts {
  message: AtifMessage;
  model?: string;
  reasoningContent?: string;
  toolCalls: AtifToolCall[];
  metrics?: AtifMetrics;
}

const CALL_KEYS = new Set(["id", "type", "name", "function", "arguments", "input"]);

/** Tool-call arguments are always an object in ATIF; strings are parsed when possible. */
export function normalizeArguments(raw: Json | undefined): JsonObject {
  if (raw === undefined || raw === null) return {};
  if (isJsonObject(raw)) return cloneJson(raw);
  if (typeof raw === "string") {
    let parsed: Json;
    try {
      parsed = JSON.parse(raw) as Json;
    } catch {
      return { raw };
    }
    return isJsonObject(parsed) ? parsed : { value: parsed };
  }
  return { value: cloneJson(raw) };
}

/** OpenAI `{id, function:{name, arguments}}`, Anthropic `{type:"tool_use", id, name, input}` or NAT `{id, name, arguments}`. */
export function toolCallsFrom(entries: Json[]): AtifToolCall[] {
  const calls: AtifToolCall[] = [];
  entries.forEach((entry, index) => {
    if (!isJsonObject(entry)) return;
    const fn = isJsonObject(entry["function"]) ? entry["function"] : undefined;
    const name = typeof fn?.["name"] === "string" ? fn["name"] : typeof entry["name"] === "string" ? entry["name"] : undefined;
    if (name === undefined) return;
    const id = typeof entry["id"] === "string" && entry["id"] !== "" ? entry["id"] : `${name}:${index + 1}`;
    const raw = fn && "arguments" in fn ? fn["arguments"] : "arguments" in entry ? entry["arguments"] : entry["input"];
    const call: AtifToolCall = { tool_call_id: id, function_name: name, arguments: normalizeArguments(raw) };
    const extra: JsonObject = {};
    for (const [k, v] of Object.entries(entry)) if (!CALL_KEYS.has(k)) extra[k] = cloneJson(v);
    if (Object.keys(extra).length > 0) call.extra = extra;
    calls.push(call);
  });
  return calls;
}

function openAiParts(message: JsonObject): ResponseParts {
  const content = message["content"];
  let text: AtifMessage = "";
  if (typeof content === "string") text = content;
  else if (Array.isArray(content)) {
    const parts: AtifContentPart[] = [];
    for (const p of content) if (isJsonObject(p) && p["type"] === "text" && typeof p["text"] === "string") parts.push({ type: "text", text: p["text"] });
    text = parts.length > 0 ? parts : "";
  }
  const out: ResponseParts = { message: text, toolCalls: Array.isArray(message["tool_calls"]) ? toolCallsFrom(message["tool_calls"]) : [] };
  for (const key of ["reasoning_content", "reasoning"]) {
    const r = message[key];
    if (typeof r === "string") {
      out.reasoningContent = r;
      break;
    }
  }
  return out;
}

function anthropicParts(blocks: Json[]): ResponseParts {
  const texts: string[] = [];
  const thinking: string[] = [];
  const uses: Json[] = [];
  for (const b of blocks) {
    if (!isJsonObject(b)) continue;
    if (b["type"] === "text" && typeof b["text"] === "string") texts.push(b["text"]);
    else if (b["type"] === "thinking" && typeof b["thinking"] === "string") thinking.push(b["thinking"]);
    else if (b["type"] === "tool_use") uses.push(b);
  }
  const out: ResponseParts = { message: texts.join(""), toolCalls: toolCallsFrom(uses) };
  if (thinking.length > 0) out.reasoningContent = thinking.join("\n");
  return out;
}

/** Reads message, reasoning, tool calls, model and usage from an LLM end's `data`. */
export function responseParts(endData: Json | undefined): ResponseParts {
  const body = unwrapBody(endData);
  if (typeof body === "string") return { message: body, toolCalls: [] };
  if (!isJsonObject(body)) return { message: "", toolCalls: [] };
  let parts: ResponseParts;
  const choices = body["choices"];
  if (Array.isArray(choices)) {
    const first = choices[0];
    const message = isJsonObject(first) && isJsonObject(first["message"]) ? first["message"] : {};
    parts = openAiParts(message);
  } else if (Array.isArray(body["content"])) {
    parts = anthropicParts(body["content"]);
  } else {
    // NAT-style flat response: {content: string, tool_calls: [...]}
    parts = openAiParts(body);
  }
  if (typeof body["model"] === "string") parts.model = body["model"];
  const metrics = metricsFromUsage(body["usage"]);
  if (metrics) parts.metrics = metrics;
  return parts;
}
