import { checkOptionKeys } from "../events/option-keys.js";
import { CATEGORIES } from "../events/types.js";

const CATEGORY_SET: ReadonlySet<string> = new Set(CATEGORIES);

/**
 * Rejects option keys the API does not know, so a misspelt or snake_case option is an error at
 * the call instead of silently lost data (`tool_call_id` would otherwise drop the call id).
 */
export function checkOptions(options: unknown, allowed: ReadonlySet<string>, where: string): void {
  if (options === undefined) return;
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new TypeError(`${where}: options must be an object`);
  }
  checkOptionKeys(where, options, allowed);
}

/** `checkOptions` as a value: the error, or undefined when the options are fine. */
export function optionsError(options: unknown, allowed: ReadonlySet<string>, where: string): TypeError | undefined {
  try {
    checkOptions(options, allowed, where);
    return undefined;
  } catch (error) {
    return error as TypeError;
  }
}

/** The producer API emits only the ATOF 0.1 category vocabulary. */
export function checkCategory(category: unknown, where: string): void {
  if (category !== undefined && category !== null && !CATEGORY_SET.has(category as string)) {
    throw new TypeError(`${where}: category must be one of ${CATEGORIES.join(", ")} (got ${JSON.stringify(category)})`);
  }
}

const set = (...keys: string[]): ReadonlySet<string> => new Set(keys);

export const RUNTIME_OPTIONS = set("clock", "idGenerator", "maxQueueSize", "namespace", "onDiagnostic", "pricing", "recordedHeaders");
export const SCOPE_OPTIONS = set("category", "attributes", "input", "metadata", "categoryProfile", "parent", "timestamp");
export const POP_OPTIONS = set("output", "metadata", "timestamp");
export const MARK_OPTIONS = set("parent", "category", "categoryProfile", "data", "dataSchema", "metadata", "severity", "timestamp");
export const METRIC_OPTIONS = set("parent", "metadata", "timestamp");
export const TOOL_OPTIONS = set("toolCallId", "attributes", "metadata", "data", "parent", "signal", "timestamp");
export const END_TOOL_OPTIONS = set("data", "metadata", "timestamp");
export const LLM_OPTIONS = set(
  "modelName",
  "dataSchema",
  "attributes",
  "metadata",
  "parent",
  "signal",
  "timestamp",
  "injectTraceparent",
  "prompt",
);
export const LLM_STREAM_OPTIONS: ReadonlySet<string> = new Set([...LLM_OPTIONS, "assemble"]);
export const END_LLM_OPTIONS = set("data", "metadata", "modelName", "timestamp", "error");
export const SHUTDOWN_OPTIONS = set("timeoutMs");
export const REGISTRATION_OPTIONS = set("scope", "breakChain");
export const SUBSCRIBE_OPTIONS = set("scope", "exporter");
