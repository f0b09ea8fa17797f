import { isJsonObject, type Json } from "../../src/events/json.js";

const TEXT_KEYS = ["content", "summary", "message", "text", "prompt"] as const;

/**
 * A human-readable text for `output.value`, or undefined when the payload is data.
 * Depth-limited so a hostile payload cannot recurse forever.
 */
export function displayText(value: Json | undefined, depth = 0): string | undefined {
  if (depth > 4 || value === null || value === undefined) return undefined;
  if (typeof value === "string") {
    const trimmed = value.trim();
    if (trimmed === "") return undefined;
    if (trimmed.startsWith("{") || trimmed.startsWith("[") || trimmed.startsWith('"')) {
      try {
        const parsed = JSON.parse(trimmed) as Json;
        if (typeof parsed === "object") return displayText(parsed, depth + 1) ?? trimmed;
        if (typeof parsed === "string") return displayText(parsed, depth + 1);
      } catch {
        // not JSON: the string itself is the text
      }
    }
    return trimmed;
  }
  if (Array.isArray(value)) return partsText(value);
  if (!isJsonObject(value)) return undefined;
  for (const key of TEXT_KEYS) {
    const text = displayText(value[key], depth + 1);
    if (text !== undefined) return text;
  }
  const choices = value["choices"];
  if (Array.isArray(choices) && isJsonObject(choices[0])) {
    const text = displayText(choices[0]["message"], depth + 1);
    if (text !== undefined) return text;
  }
  return requestedTools(value);
}

function partsText(parts: Json[]): string | undefined {
  const texts: string[] = [];
  for (const part of parts) {
    if (isJsonObject(part) && part["type"] === "text" && typeof part["text"] === "string" && part["text"].trim() !== "") {
      texts.push(part["text"]);
    }
  }
  if (texts.length > 0) return texts.join("\n");
  const names = parts.flatMap((p) => (isJsonObject(p) && p["type"] === "tool_use" && typeof p["name"] === "string" ? [p["name"]] : []));
  return names.length > 0 ? `Requested tools: ${names.join(", ")}` : undefined;
}

function requestedTools(value: Record<string, Json>): string | undefined {
  const calls = value["tool_calls"];
  if (!Array.isArray(calls)) return undefined;
  const names = calls.flatMap((c) => {
    const fn = isJsonObject(c) ? c["function"] : undefined;
    return isJsonObject(fn) && typeof fn["name"] === "string" ? [fn["name"]] : [];
  });
  return names.length > 0 ? `Requested tools: ${names.join(", ")}` : undefined;
}
