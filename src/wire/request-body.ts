import { isJsonObject, type Json, type JsonObject } from "../events/json.js";

/**
 * The provider request body inside an `llm` start's data: `data.content` for the runtime's
 * `{ headers, content }`, else the data itself when it has a transcript (`messages`, `contents`
 * or `input`).
 */
export function requestBodyOf(data: Json): JsonObject | undefined {
  if (!isJsonObject(data)) return undefined;
  const content = data["content"];
  if (isJsonObject(content)) return content;
  return Array.isArray(data["messages"]) || Array.isArray(data["contents"]) || data["input"] !== undefined ? data : undefined;
}
