import type { Attributes } from "@opentelemetry/api";
import { attributeKey } from "./flatten.js";

/** Keys that carry message bodies, tool arguments and results, or system instructions. */
const CONTENT_KEYS = new Set([
  "input.value",
  "input.mime_type",
  "output.value",
  "output.mime_type",
  "tool.parameters",
  "tool_call.function.arguments",
  "gen_ai.input.messages",
  "gen_ai.output.messages",
  "gen_ai.system_instructions",
  "gen_ai.tool.call.arguments",
  "gen_ai.tool.call.result",
  // The tools a request offered, with their parameter schemas (a tool's name and description stay
  // on its own span as gen_ai.tool.name / gen_ai.tool.description).
  "gen_ai.tool.definitions",
  // A prompt's template and the values filled in (its name and version stay).
  "llm.prompt_template.template",
  "llm.prompt_template.variables",
]);
/** OpenInference message content and tool-call arguments inside `llm.input_messages.*` / `llm.output_messages.*`. */
const MESSAGE_CONTENT = new RegExp(
  String.raw`^llm\.(?:input|output)_messages\.\d+\.message\.(?:content$|contents\.|tool_calls\.\d+\.tool_call\.function\.arguments$)` +
    String.raw`|^llm\.tools\.\d+\.tool\.json_schema$`,
);
/** OpenInference's JSON of a request's invocation parameters: off, only its structural entries stay. */
const INVOCATION_PARAMETERS = "llm.invocation_parameters";
/** String-valued invocation parameters that name a setting rather than carry content. */
const SETTING_NAMES = new Set(["model", "tool_choice", "reasoning_effort", "service_tier", "truncation"]);

function under(key: string, prefix: string): boolean {
  // 46 is ".": the key is the prefix or one of its dotted children
  return key === prefix || (key.startsWith(prefix) && key.charCodeAt(prefix.length) === 46);
}

/**
 * What `captureContent: false` and `aliases: false` take out of a finished span's attributes,
 * after every projection wrote its own: one place, so no projection can leak content by forgetting.
 * Structure stays: names, ids, roles, token counts, finish reasons, status and errors.
 */
export class ContentFilter {
  private readonly prefixes: string[];

  private constructor(
    private readonly stripContent: boolean,
    ns: string,
    aliases: boolean,
  ) {
    this.prefixes = [];
    if (!aliases || stripContent) this.prefixes.push(attributeKey(ns, "start.input"), attributeKey(ns, "end.output"));
    if (stripContent) {
      this.prefixes.push(attributeKey(ns, "start.data"), attributeKey(ns, "end.data"), attributeKey(ns, "mark.data"));
      this.prefixes.push(attributeKey(ns, "tool.result.annotation"));
      // full flattens an llm start's profile: a prompt's template and variables are content there too.
      this.prefixes.push(attributeKey(ns, "start.category_profile.prompt"));
    }
  }

  /** Undefined when both are on (the default), so spans pay nothing. */
  static create(captureContent: boolean, aliases: boolean, ns: string): ContentFilter | undefined {
    return captureContent && aliases ? undefined : new ContentFilter(!captureContent, ns, aliases);
  }

  apply(attrs: Attributes): void {
    for (const key of Object.keys(attrs)) {
      if (this.removes(key)) delete attrs[key];
    }
    if (this.stripContent && typeof attrs[INVOCATION_PARAMETERS] === "string") {
      const settings = settingsOnly(attrs[INVOCATION_PARAMETERS]);
      if (settings === undefined) delete attrs[INVOCATION_PARAMETERS];
      else attrs[INVOCATION_PARAMETERS] = settings;
    }
  }

  private removes(key: string): boolean {
    if (this.stripContent && (CONTENT_KEYS.has(key) || MESSAGE_CONTENT.test(key))) return true;
    for (const prefix of this.prefixes) if (under(key, prefix)) return true;
    return false;
  }
}

/**
 * The invocation parameters without content: numbers, booleans and the strings that name a
 * setting stay (temperature, max tokens, the model); anything else (a response format's schema, a
 * predicted output, a prompt template's variables, a user id) goes. Undefined when nothing stays.
 */
function settingsOnly(text: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined;
  const kept: Record<string, number | boolean | string> = {};
  for (const [key, value] of Object.entries(parsed)) {
    if ((typeof value === "number" && Number.isFinite(value)) || typeof value === "boolean") kept[key] = value;
    else if (typeof value === "string" && SETTING_NAMES.has(key)) kept[key] = value;
  }
  return Object.keys(kept).length === 0 ? undefined : JSON.stringify(kept);
}
