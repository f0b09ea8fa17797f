import type { JsonObject } from "../events/json.js";
import { RelaytraceError } from "./errors.js";
import { toJsonSafe } from "./json-safe.js";
import { declareOptions, is } from "../events/option-spec.js";

/** The prompt an LLM call was made from: a named, versioned template and the values filled in. */
export interface PromptRef {
  name: string;
  version?: string;
  /** The template text, e.g. `Answer {question} for {user}` (content: withheld where content capture is off). */
  template?: string;
  /** The values filled into the template (content, as the template). */
  variables?: JsonObject;
}

const PROMPT = declareOptions<PromptRef>(
  "prompt",
  { name: is.required(is.nonEmptyString), version: is.nonEmptyString, template: is.string, variables: is.jsonObject },
  { error: (message) => new RelaytraceError("invalid_argument", message.replace(/^prompt: /, "prompt.")) },
);

/** The checked wire form of a prompt option (`{name, version?, template?, variables?}`); a wrong field names itself. */
export function promptProfile(prompt: unknown): JsonObject {
  if (typeof prompt !== "object" || prompt === null || Array.isArray(prompt)) {
    throw new RelaytraceError("invalid_argument", "prompt must be an object { name, version?, template?, variables? }");
  }
  PROMPT.check(prompt);
  const p = prompt as PromptRef;
  const out: JsonObject = { name: p.name };
  if (p.version !== undefined) out.version = p.version;
  if (p.template !== undefined) out.template = p.template;
  if (p.variables !== undefined) out.variables = toJsonSafe(p.variables) as JsonObject;
  return out;
}
