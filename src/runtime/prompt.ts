import { isJsonObject, type Json, type JsonObject } from "../events/json.js";
import { RelaytraceError } from "./errors.js";
import { toJsonSafe } from "./json-safe.js";
import { checkOptions } from "./options.js";

/** The prompt an LLM call was made from: a named, versioned template and the values filled in. */
export interface PromptRef {
  name: string;
  version?: string;
  /** The template text, e.g. `Answer {question} for {user}` (content: withheld where content capture is off). */
  template?: string;
  /** The values filled into the template (content, as the template). */
  variables?: JsonObject;
}

const PROMPT_KEYS: ReadonlySet<string> = new Set(["name", "version", "template", "variables"]);

function invalid(field: string, what: string): RelaytraceError {
  return new RelaytraceError("invalid_argument", `prompt.${field} must be ${what}`);
}

/** The checked wire form of a prompt option (`{name, version?, template?, variables?}`); a wrong field names itself. */
export function promptProfile(prompt: unknown): JsonObject {
  if (typeof prompt !== "object" || prompt === null || Array.isArray(prompt)) {
    throw new RelaytraceError("invalid_argument", "prompt must be an object { name, version?, template?, variables? }");
  }
  checkOptions(prompt, PROMPT_KEYS, "prompt");
  const p = prompt as Record<string, unknown>;
  if (typeof p.name !== "string" || p.name === "") throw invalid("name", "a non-empty string");
  const out: JsonObject = { name: p.name };
  if (p.version !== undefined) {
    if (typeof p.version !== "string" || p.version === "") throw invalid("version", "a non-empty string");
    out.version = p.version;
  }
  if (p.template !== undefined) {
    if (typeof p.template !== "string") throw invalid("template", "a string");
    out.template = p.template;
  }
  if (p.variables !== undefined) {
    if (!isJsonObject(p.variables as Json)) throw invalid("variables", "a JSON object");
    out.variables = toJsonSafe(p.variables) as JsonObject;
  }
  return out;
}
