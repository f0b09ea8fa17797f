import { SemanticConventions as SC } from "./openinference-conventions.js";

/**
 * Attribute names of OpenInference's indexed messages (`llm.input_messages.3.message.role`, ...),
 * built once per index. A request lists its whole transcript, so a long conversation writes
 * thousands of these names per span; a fresh concatenation each time is a new string to build
 * and hash. Indices past the cached range are built on demand.
 */
export interface MessageKeys {
  role: string;
  content: string;
  toolCallId: string;
  /** the keys of tool call `j` of this message */
  toolCall(j: number): ToolCallKeys;
}

export interface ToolCallKeys {
  id: string;
  functionName: string;
  argumentsJson: string;
}

const MAX_CACHED_MESSAGES = 4096;
const MAX_CACHED_CALLS = 64;

function toolCallKeys(prefix: string, j: number): ToolCallKeys {
  const callPrefix = `${prefix}${SC.MESSAGE_TOOL_CALLS}.${j}.`;
  return {
    id: callPrefix + SC.TOOL_CALL_ID,
    functionName: callPrefix + SC.TOOL_CALL_FUNCTION_NAME,
    argumentsJson: callPrefix + SC.TOOL_CALL_FUNCTION_ARGUMENTS_JSON,
  };
}

function messageKeys(list: string, i: number): MessageKeys {
  const prefix = `${list}.${i}.`;
  const calls: ToolCallKeys[] = [];
  return {
    role: prefix + SC.MESSAGE_ROLE,
    content: prefix + SC.MESSAGE_CONTENT,
    toolCallId: prefix + SC.MESSAGE_TOOL_CALL_ID,
    toolCall(j) {
      if (j >= MAX_CACHED_CALLS) return toolCallKeys(prefix, j);
      return (calls[j] ??= toolCallKeys(prefix, j));
    },
  };
}

function keyTable(list: string): (i: number) => MessageKeys {
  const table: MessageKeys[] = [];
  return (i) => {
    if (i >= MAX_CACHED_MESSAGES) return messageKeys(list, i);
    return (table[i] ??= messageKeys(list, i));
  };
}

/** Keys of `llm.input_messages.{i}.*`. */
export const inputMessageKeys = keyTable(SC.LLM_INPUT_MESSAGES);
/** Keys of `llm.output_messages.{i}.*`. */
export const outputMessageKeys = keyTable(SC.LLM_OUTPUT_MESSAGES);
/** `llm.tools.{i}.tool.json_schema`. */
export const toolSchemaKey = (() => {
  const table: string[] = [];
  return (i: number): string =>
    i >= MAX_CACHED_MESSAGES ? `${SC.LLM_TOOLS}.${i}.${SC.TOOL_JSON_SCHEMA}` : (table[i] ??= `${SC.LLM_TOOLS}.${i}.${SC.TOOL_JSON_SCHEMA}`);
})();
