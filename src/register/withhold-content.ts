import type { Json, JsonObject } from "../events/json.js";
import { isJsonObject } from "../events/json.js";
import type { AtofEvent } from "../events/types.js";
import type { Runtime } from "../runtime/runtime.js";
import type { EventFields, EventSanitizer } from "../runtime/types.js";

/**
 * Strings that describe a payload's structure, not its content: kept when content is withheld, so
 * the projections still name models, roles and finish reasons.
 */
const STRUCTURE_KEYS: ReadonlySet<string> = new Set([
  "model",
  "modelVersion",
  "role",
  "type",
  "object",
  "status",
  "finish_reason",
  "finishReason",
  "stop_reason",
  "tool_choice",
  "name",
  "label",
]);

/** Values that are content through and through, numbers included (a tool's arguments, a schema): emptied whole. */
const CONTENT_KEYS: ReadonlySet<string> = new Set([
  "input",
  "args",
  "arguments",
  "parameters",
  "input_schema",
  "schema",
  "json_schema",
  "response",
  "output",
  "result",
  "data",
]);

/** The withheld string's stand-in. */
export const WITHHELD = "";

/**
 * A copy of `value` with its content taken out: strings become empty unless their key names
 * structure, members under a content key become `{}`; numbers, booleans and the shape stay (token
 * counts, settings, roles). Iterative, so a deep payload cannot exhaust the stack.
 */
export function withholdContent(value: Json): Json {
  const root: { value: Json } = { value: null };
  const stack: { source: Json; key: string | undefined; assign: (v: Json) => void }[] = [
    { source: value, key: undefined, assign: (v) => (root.value = v) },
  ];
  while (stack.length > 0) {
    const { source, key, assign } = stack.pop()!;
    if (typeof source === "string") assign(key !== undefined && STRUCTURE_KEYS.has(key) ? source : WITHHELD);
    else if (Array.isArray(source)) {
      const copy: Json[] = new Array<Json>(source.length).fill(null);
      assign(copy);
      source.forEach((item, i) => stack.push({ source: item, key, assign: (v) => (copy[i] = v) }));
    } else if (isJsonObject(source)) {
      const copy: JsonObject = {};
      assign(copy);
      for (const [name, member] of Object.entries(source)) {
        if (CONTENT_KEYS.has(name) && member !== null) copy[name] = Array.isArray(member) ? [] : {};
        else stack.push({ source: member, key: name, assign: (v) => (copy[name] = v) });
      }
    } else assign(source);
  }
  return root.value;
}

function withheldFields(event: AtofEvent, fields: EventFields): Partial<EventFields> {
  let profile = fields.categoryProfile;
  if (profile !== null && "tool_result_annotation" in profile) {
    const { tool_result_annotation: _annotation, ...rest } = profile;
    profile = rest;
  }
  let data: Json;
  if (event.kind === "scope" && event.category === "tool") {
    // A tool's arguments and result are content whole; an empty object keeps the arguments' type.
    data = event.scope_category === "start" ? {} : null;
  } else if (event.kind === "scope" && event.category === "llm") {
    data = withholdContent(fields.data);
  } else if (event.kind === "mark") {
    data = withholdContent(fields.data);
  } else {
    data = null;
  }
  return { data, categoryProfile: profile, metadata: fields.metadata };
}

/**
 * Registers sanitizers that keep every prompt, completion, tool argument and tool result out of
 * every exporter of `runtime` (ATOF and ATIF as well as spans). Registered last in the chain, so
 * the app's own sanitizers still see the content. Returns the remover.
 */
export function withholdContentFrom(runtime: Runtime): () => void {
  const name = "relaytrace.register.withhold_content";
  const priority = 2_000_000;
  const sanitizer: EventSanitizer = withheldFields;
  const removers = [
    runtime.registerScopeStartSanitizer(name, priority, sanitizer),
    runtime.registerScopeEndSanitizer(name, priority, sanitizer),
    runtime.registerMarkSanitizer(name, priority, sanitizer),
  ];
  return () => {
    for (const remove of removers) remove();
  };
}
