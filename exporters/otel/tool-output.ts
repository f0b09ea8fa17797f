import { isJsonObject, type Json } from "../../src/events/json.js";
import { jsonText } from "./flatten.js";

/**
 * The tool's own output in a tool end's data, encoded once. The agent loop records a tool result
 * as `{output, isError}` with `output` already the text sent back to the model (often JSON text);
 * rendering that wrapper as JSON would nest a JSON string in JSON. Any other data is the output.
 */
export function toolOutputOf(data: Json): { text: string; json: boolean } | undefined {
  if (data === null || data === undefined) return undefined;
  if (isJsonObject(data) && typeof data["output"] === "string" && Object.keys(data).every((k) => k === "output" || k === "isError")) {
    const text = data["output"];
    return { text, json: isJsonText(text) };
  }
  if (typeof data === "string") return { text: data, json: isJsonText(data) };
  return { text: jsonText(data), json: true };
}

function isJsonText(text: string): boolean {
  const first = text.trimStart()[0];
  if (first !== "{" && first !== "[") return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
