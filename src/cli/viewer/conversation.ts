import { isJsonObject, type Json, type JsonObject } from "../../events/json.js";
import type { ViewMessage, ViewUsage } from "./model.js";

/**
 * Reads an `llm` span's recorded request and response as a conversation, whatever the dialect
 * (OpenAI Chat Completions and Responses, Anthropic Messages, Gemini, or a producer's plain
 * `{messages}`). Tolerant by design: an unknown shape yields no messages, never an error.
 */

type Call = NonNullable<ViewMessage["toolCalls"]>[number];

function text(value: Json | undefined): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value;
  if (Array.isArray(value)) {
    return value
      .map((part) => {
        if (typeof part === "string") return part;
        if (!isJsonObject(part)) return "";
        if (typeof part["text"] === "string") return part["text"];
        if (part["type"] === "image" || part["type"] === "image_url" || part["type"] === "input_image") return "[image]";
        return "";
      })
      .filter((s) => s !== "")
      .join("\n");
  }
  if (isJsonObject(value) && typeof value["text"] === "string") return value["text"];
  return JSON.stringify(value);
}

function argumentsText(value: Json | undefined): string {
  if (typeof value === "string") return value;
  return value === undefined ? "" : JSON.stringify(value);
}

function str(value: Json | undefined): string {
  return typeof value === "string" ? value : "";
}

/** The request body: ours wrap it as `{headers, content}`. */
function requestBody(input: Json): JsonObject | undefined {
  if (!isJsonObject(input)) return undefined;
  const content = input["content"];
  if (isJsonObject(content) && ("messages" in content || "input" in content || "contents" in content)) return content;
  return input;
}

function chatMessage(m: JsonObject): ViewMessage[] {
  const role = str(m["role"]) || "user";
  const content = m["content"];
  // Anthropic blocks: tool_use inside assistant content, tool_result inside user content.
  if (Array.isArray(content) && content.some((b) => isJsonObject(b) && (b["type"] === "tool_use" || b["type"] === "tool_result"))) {
    const out: ViewMessage[] = [];
    const calls: Call[] = [];
    const texts: string[] = [];
    for (const block of content) {
      if (!isJsonObject(block)) continue;
      if (block["type"] === "tool_use") calls.push({ id: str(block["id"]), name: str(block["name"]), arguments: argumentsText(block["input"]) });
      else if (block["type"] === "tool_result") out.push({ role: "tool", text: text(block["content"]), toolCallId: str(block["tool_use_id"]) });
      else texts.push(text([block]));
    }
    if (texts.length > 0 || calls.length > 0) out.unshift({ role, text: texts.join("\n"), ...(calls.length ? { toolCalls: calls } : {}) });
    return out;
  }
  const message: ViewMessage = { role, text: text(content) };
  const toolCalls = m["tool_calls"];
  if (Array.isArray(toolCalls) && toolCalls.length > 0) {
    message.toolCalls = toolCalls.filter(isJsonObject).map((c) => {
      const fn = isJsonObject(c["function"]) ? c["function"] : c;
      return { id: str(c["id"]), name: str(fn["name"]), arguments: argumentsText(fn["arguments"]) };
    });
  }
  if (typeof m["tool_call_id"] === "string") message.toolCallId = m["tool_call_id"];
  return [message];
}

function responsesItem(item: Json): ViewMessage[] {
  if (typeof item === "string") return [{ role: "user", text: item }];
  if (!isJsonObject(item)) return [];
  const type = item["type"];
  if (type === "function_call") return [{ role: "assistant", text: "", toolCalls: [{ id: str(item["call_id"]), name: str(item["name"]), arguments: argumentsText(item["arguments"]) }] }];
  if (type === "function_call_output") return [{ role: "tool", text: text(item["output"]), toolCallId: str(item["call_id"]) }];
  if (type === "reasoning") return [];
  return [{ role: str(item["role"]) || "assistant", text: text(item["content"]) }];
}

function geminiContent(c: Json): ViewMessage[] {
  if (!isJsonObject(c) || !Array.isArray(c["parts"])) return [];
  const role = c["role"] === "model" ? "assistant" : str(c["role"]) || "user";
  const out: ViewMessage[] = [];
  const texts: string[] = [];
  const calls: Call[] = [];
  for (const part of c["parts"]) {
    if (!isJsonObject(part)) continue;
    if (typeof part["text"] === "string") texts.push(part["text"]);
    const call = part["functionCall"];
    if (isJsonObject(call)) calls.push({ id: str(call["id"]), name: str(call["name"]), arguments: argumentsText(call["args"]) });
    const response = part["functionResponse"];
    if (isJsonObject(response)) out.push({ role: "tool", text: argumentsText(response["response"]), toolCallId: str(response["id"]) || str(response["name"]) });
  }
  if (texts.length > 0 || calls.length > 0) out.unshift({ role, text: texts.join("\n"), ...(calls.length ? { toolCalls: calls } : {}) });
  return out;
}

/** The messages sent to the model. */
export function requestMessages(input: Json): ViewMessage[] {
  const body = requestBody(input);
  if (!body) return [];
  const out: ViewMessage[] = [];
  const system = body["system"] ?? body["instructions"];
  if (system !== undefined && system !== null) out.push({ role: "system", text: text(system) });
  const geminiSystem = body["systemInstruction"] ?? body["system_instruction"];
  if (isJsonObject(geminiSystem)) out.push({ role: "system", text: text(geminiSystem["parts"]) });
  if (Array.isArray(body["messages"])) for (const m of body["messages"]) if (isJsonObject(m)) out.push(...chatMessage(m));
  if (typeof body["input"] === "string") out.push({ role: "user", text: body["input"] });
  else if (Array.isArray(body["input"])) for (const item of body["input"]) out.push(...responsesItem(item));
  if (Array.isArray(body["contents"])) for (const c of body["contents"]) out.push(...geminiContent(c));
  return out;
}

/** The model's answer. */
export function responseMessages(output: Json): ViewMessage[] {
  if (!isJsonObject(output)) return typeof output === "string" && output !== "" ? [{ role: "assistant", text: output }] : [];
  if (Array.isArray(output["choices"])) {
    const first = output["choices"][0];
    if (isJsonObject(first) && isJsonObject(first["message"])) return chatMessage({ role: "assistant", ...first["message"] });
    return [];
  }
  if (Array.isArray(output["candidates"])) {
    const first = output["candidates"][0];
    return isJsonObject(first) ? geminiContent({ role: "model", ...(isJsonObject(first["content"]) ? first["content"] : {}) }) : [];
  }
  if (Array.isArray(output["output"])) return output["output"].flatMap(responsesItem).filter((m) => m.text !== "" || m.toolCalls);
  if (Array.isArray(output["content"])) return chatMessage({ role: "assistant", content: output["content"] });
  // A producer's plain shape: `{content, tool_calls}`.
  if ("content" in output || "tool_calls" in output) return chatMessage({ role: "assistant", ...output });
  return [];
}

function num(value: Json | undefined): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** Token usage of a response, from whichever dialect's field names it uses. */
export function usageOf(output: Json): ViewUsage | undefined {
  if (!isJsonObject(output)) return undefined;
  const u = isJsonObject(output["usage"]) ? output["usage"] : isJsonObject(output["usageMetadata"]) ? output["usageMetadata"] : undefined;
  if (!u) return undefined;
  const promptTokens = num(u["prompt_tokens"]) ?? num(u["input_tokens"]) ?? num(u["promptTokenCount"]);
  const completionTokens = num(u["completion_tokens"]) ?? num(u["output_tokens"]) ?? num(u["candidatesTokenCount"]);
  const totalTokens = num(u["total_tokens"]) ?? num(u["totalTokenCount"]) ?? (promptTokens !== undefined || completionTokens !== undefined ? (promptTokens ?? 0) + (completionTokens ?? 0) : undefined);
  if (promptTokens === undefined && completionTokens === undefined && totalTokens === undefined) return undefined;
  return { ...(promptTokens !== undefined ? { promptTokens } : {}), ...(completionTokens !== undefined ? { completionTokens } : {}), ...(totalTokens !== undefined ? { totalTokens } : {}) };
}

/** The model that answered (response), else the one asked for (request). */
export function modelOf(input: Json, output: Json): string | undefined {
  if (isJsonObject(output)) {
    const m = output["model"] ?? output["modelVersion"];
    if (typeof m === "string" && m !== "") return m;
  }
  const body = requestBody(input);
  const m = body?.["model"];
  return typeof m === "string" && m !== "" ? m : undefined;
}
