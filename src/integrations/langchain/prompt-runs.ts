import type { Serialized } from "@langchain/core/load/serializable";
import type { ChainValues } from "@langchain/core/utils/types";
import { isJsonObject, type JsonObject } from "../../events/json.js";
import { toJsonSafe } from "../../runtime/json-safe.js";
import type { PromptRef } from "../../runtime/prompt.js";

/** LangChain's run type of a prompt template's run (`handleChainStart`'s `runType`). */
export const PROMPT_RUN_TYPE = "prompt";

interface SerializedNode {
  id?: unknown;
  kwargs?: Record<string, unknown>;
}

function node(value: unknown): SerializedNode | undefined {
  return typeof value === "object" && value !== null ? (value as SerializedNode) : undefined;
}

function className(n: SerializedNode | undefined): string {
  return Array.isArray(n?.id) ? String(n.id[n.id.length - 1]) : "";
}

/** One chat message template as `role: template` (`SystemMessagePromptTemplate` → `system`); a placeholder as `{name}`. */
function messageLine(message: unknown): string | undefined {
  const n = node(message);
  const kind = className(n);
  if (kind === "MessagesPlaceholder") {
    const variable = n?.kwargs?.["variable_name"];
    return typeof variable === "string" ? `placeholder: {${variable}}` : undefined;
  }
  const template = node(n?.kwargs?.["prompt"])?.kwargs?.["template"];
  const role = /^(\w+?)MessagePromptTemplate$/.exec(kind)?.[1]?.toLowerCase();
  return typeof template === "string" && role !== undefined ? `${role}: ${template}` : undefined;
}

/**
 * The template text of a serialized LangChain prompt: a `PromptTemplate`'s template, or a
 * `ChatPromptTemplate`'s message templates one per line (`system: You help {customer}.`).
 * Undefined for any other shape (a template that does not serialize, a custom prompt class).
 */
export function templateOf(serialized: Serialized | undefined): string | undefined {
  // Nested templates are still objects with a toJSON of their own: read them as JSON says.
  let plain: unknown;
  try {
    plain = serialized === undefined ? undefined : JSON.parse(JSON.stringify(serialized));
  } catch {
    return undefined;
  }
  const kwargs = node(plain)?.kwargs;
  if (typeof kwargs?.["template"] === "string") return kwargs["template"];
  const messages = kwargs?.["messages"];
  if (!Array.isArray(messages)) return undefined;
  const lines: string[] = [];
  for (const message of messages) {
    const line = messageLine(message);
    if (line === undefined) return undefined;
    lines.push(line);
  }
  return lines.length > 0 ? lines.join("\n") : undefined;
}

/**
 * The prompt a LangChain prompt-template run describes: its run name (LangChain's, or the one
 * given with `withConfig({ runName })`), its template and the values it was invoked with.
 */
export function promptOfRun(serialized: Serialized | undefined, inputs: ChainValues, runName: string): PromptRef | undefined {
  if (runName === "") return undefined;
  const prompt: PromptRef = { name: runName };
  const template = templateOf(serialized);
  if (template !== undefined) prompt.template = template;
  const variables = toJsonSafe(inputs);
  if (isJsonObject(variables) && Object.keys(variables).length > 0) prompt.variables = variables as JsonObject;
  return prompt;
}
