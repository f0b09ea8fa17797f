import type { ParsedToolCall, ProviderStyle } from "./providers/types.js";
import type { ToolResult } from "./pending.js";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

function parseArgs(text: unknown): Record<string, unknown> {
  if (isObj(text)) return text;
  if (typeof text !== "string" || text.trim() === "") return {};
  try {
    const v: unknown = JSON.parse(text);
    return isObj(v) ? v : {};
  } catch {
    return {};
  }
}

/** The tool calls of a stored assistant message, with their arguments (for re-execution on resume). */
export function assistantToolCalls(style: ProviderStyle, message: unknown): ParsedToolCall[] {
  if (!isObj(message)) return [];
  if (style === "openai") {
    const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
    return calls.filter(isObj).map((c) => {
      const fn = isObj(c.function) ? c.function : {};
      const raw = typeof fn.arguments === "string" ? fn.arguments : JSON.stringify(fn.arguments ?? {});
      return { id: String(c.id ?? ""), name: String(fn.name ?? ""), args: parseArgs(fn.arguments), arguments: raw };
    });
  }
  const blocks = Array.isArray(message.content) ? message.content : [];
  return blocks
    .filter((b): b is Obj => isObj(b) && b.type === "tool_use")
    .map((b) => {
      const input = isObj(b.input) ? b.input : {};
      return { id: String(b.id ?? ""), name: String(b.name ?? ""), args: input, arguments: JSON.stringify(input) };
    });
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p) => (isObj(p) && typeof p.text === "string" ? p.text : "")).join("");
  return content === undefined || content === null ? "" : JSON.stringify(content);
}

/** Tool results already in the transcript after `index`, by call id. OpenAI does not carry `isError`. */
export function toolResultsAfter(style: ProviderStyle, messages: unknown[], index: number): Map<string, ToolResult> {
  const out = new Map<string, ToolResult>();
  for (const m of messages.slice(index + 1)) {
    if (!isObj(m)) continue;
    if (style === "openai") {
      if (m.role === "tool" && typeof m.tool_call_id === "string") out.set(m.tool_call_id, { output: textOf(m.content), isError: false });
      continue;
    }
    if (m.role !== "user" || !Array.isArray(m.content)) continue;
    for (const b of m.content) {
      if (isObj(b) && b.type === "tool_result" && typeof b.tool_use_id === "string") {
        out.set(b.tool_use_id, { output: textOf(b.content), isError: b.is_error === true });
      }
    }
  }
  return out;
}
