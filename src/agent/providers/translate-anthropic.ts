import type { Json, JsonObject } from "../../events/json.js";
import { flattenText, isDict, parseArgs, str } from "./shape.js";
import type { Dict } from "./shape.js";

/**
 * Maps an OpenAI-style chat transcript, tool list and tool_choice onto the Anthropic Messages
 * dialect, for `translate` against an Anthropic upstream.
 */

const EMPTY_OBJECT_SCHEMA: JsonObject = { type: "object", properties: {} };

function isSystemRole(role: unknown): boolean {
  return role === "system" || role === "developer";
}

function isToolRole(role: unknown): boolean {
  return role === "tool" || role === "function";
}

/** Joined contents of the transcript's system/developer messages (for the hoisted `system`). */
export function hoistedSystem(messages: readonly unknown[]): string {
  return messages
    .filter((m): m is Dict => isDict(m) && isSystemRole(m.role))
    .map((m) => flattenText(m.content))
    .filter((t) => t !== "")
    .join("\n\n");
}

function toolInput(raw: unknown): Json {
  if (typeof raw === "string") return parseArgs(raw) as JsonObject;
  return isDict(raw) ? (raw as JsonObject) : {};
}

function assistantBlocks(m: Dict): Json[] {
  const blocks: Json[] = [];
  const text = flattenText(m.content);
  if (text !== "") blocks.push({ type: "text", text });
  if (Array.isArray(m.tool_calls)) {
    for (const call of m.tool_calls) {
      if (!isDict(call)) continue;
      const fn = isDict(call.function) ? call.function : {};
      blocks.push({ type: "tool_use", id: str(call.id) ?? "", name: str(fn.name) ?? "", input: toolInput(fn.arguments) });
    }
  }
  return blocks;
}

function toolResultBlock(m: Dict): JsonObject {
  const id = str(m.tool_call_id) ?? str(m.id) ?? str(m.name) ?? "";
  return { type: "tool_result", tool_use_id: id, content: flattenText(m.content) };
}

/** The transcript without system/developer turns, in Anthropic's message shapes. */
export function anthropicMessages(messages: readonly unknown[]): JsonObject[] {
  const out: JsonObject[] = [];
  let pendingResults: JsonObject[] = [];
  const flushResults = () => {
    if (pendingResults.length === 0) return;
    out.push({ role: "user", content: pendingResults });
    pendingResults = [];
  };
  for (const m of messages) {
    if (!isDict(m) || isSystemRole(m.role)) continue;
    if (isToolRole(m.role)) {
      // Consecutive tool results become ONE user message of tool_result blocks.
      pendingResults.push(toolResultBlock(m));
      continue;
    }
    flushResults();
    if (m.role === "assistant") {
      const blocks = assistantBlocks(m);
      if (blocks.length > 0) out.push({ role: "assistant", content: blocks });
    } else {
      out.push({ role: str(m.role) ?? "user", content: flattenText(m.content) });
    }
  }
  flushResults();
  return out;
}

/** OpenAI `{type:"function", function:{name, description, parameters}}` → `{name, description, input_schema}`. */
export function anthropicToolsFromOpenAi(tools: readonly unknown[]): JsonObject[] {
  const out: JsonObject[] = [];
  for (const t of tools) {
    if (!isDict(t)) continue;
    if (isDict(t.function)) {
      const fn = t.function;
      const tool: JsonObject = { name: str(fn.name) ?? "" };
      if (typeof fn.description === "string") tool.description = fn.description;
      tool.input_schema = isDict(fn.parameters) ? (fn.parameters as JsonObject) : EMPTY_OBJECT_SCHEMA;
      out.push(tool);
    } else if (typeof t.name === "string") {
      out.push(t as JsonObject);
    }
  }
  return out;
}

/** OpenAI tool_choice → Anthropic; undefined means "omit the key". */
export function anthropicToolChoice(choice: unknown): JsonObject | undefined {
  if (choice === "required" || choice === "any") return { type: "any" };
  if (choice === "none") return { type: "none" };
  if (isDict(choice) && isDict(choice.function) && typeof choice.function.name === "string") {
    return { type: "tool", name: choice.function.name };
  }
  // Already in Anthropic form (`{type:"tool", name}` ...): keep it.
  if (isDict(choice) && (choice.type === "any" || choice.type === "none" || choice.type === "tool")) return choice as JsonObject;
  return undefined;
}
