import type { Attributes } from "@opentelemetry/api";
import { isJsonObject } from "../../src/events/json.js";
import type { ScopeEvent } from "../../src/events/types.js";
import { PROFILE_PROMPT } from "../../src/events/wire-names.js";
import type { ProjectionName } from "./projection.js";

/**
 * The prompt an `llm` call named (`prompt` option, on its start's profile): OpenInference
 * `llm.prompt_template.template`, `.variables` (JSON text) and `.version`; full and gen_ai the
 * GenAI registry's `gen_ai.prompt.name`. Template and variables are content (the content filter
 * takes them out when capture is off).
 */
export function writePrompt(attrs: Attributes, projection: ProjectionName, start: ScopeEvent): void {
  const prompt = start.category_profile?.[PROFILE_PROMPT];
  if (start.category !== "llm" || !isJsonObject(prompt)) return;
  if (projection !== "openinference") {
    if (typeof prompt["name"] === "string") attrs["gen_ai.prompt.name"] = prompt["name"];
    return;
  }
  if (typeof prompt["template"] === "string") attrs["llm.prompt_template.template"] = prompt["template"];
  if (isJsonObject(prompt["variables"])) attrs["llm.prompt_template.variables"] = JSON.stringify(prompt["variables"]);
  if (typeof prompt["version"] === "string") attrs["llm.prompt_template.version"] = prompt["version"];
}
