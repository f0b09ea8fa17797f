import type { Json, JsonObject } from "../events/json.js";
import { recurringDecoder } from "./recurring-decode.js";
import { WireShapeError } from "./errors.js";
import { message, resultText, textOfParts } from "./messages.js";
import { argumentsText, argumentsValue, arr, asObject, isDict, nonEmptyStr, num, partsText, str } from "./read.js";
import type { Dict } from "./read.js";
import { settingsOf, toolChoiceFrom, toolDefFrom, withoutKeys } from "./request-common.js";
import type { EncodeRequestOptions, WireMessage, WirePart, WireRequest, WireToolCall, WireToolChoice, WireToolDef } from "./types.js";

/** OpenAI Responses requests: input items and the request body, decoded and encoded. */

const SYSTEM_ROLES = new Set(["system", "developer"]);

export function contentParts(content: unknown): WirePart[] {
  if (typeof content === "string") return content === "" ? [] : [{ type: "text", text: content }];
  const parts: WirePart[] = [];
  for (const p of arr(content)) {
    if (!isDict(p)) continue;
    if ((p.type === "input_text" || p.type === "output_text" || p.type === "text") && typeof p.text === "string")
      parts.push({ type: "text", text: p.text });
    else if (p.type === "refusal" && typeof p.refusal === "string") parts.push({ type: "text", text: p.refusal });
    else parts.push({ type: "media", raw: p as Json });
  }
  return parts;
}

export function reasoningText(item: Dict): string {
  const texts = [...arr(item.summary), ...arr(item.content)].flatMap((s) => (isDict(s) && typeof s.text === "string" ? [s.text] : []));
  return texts.join("\n");
}

export function functionCall(item: Dict, where: string, strict: boolean): WireToolCall {
  const id = nonEmptyStr(item.call_id) ?? nonEmptyStr(item.id);
  if (strict && id === undefined) throw new WireShapeError(`OpenAI Responses reply: ${where} (function_call) has no call_id`);
  const name = nonEmptyStr(item.name);
  if (strict && name === undefined) throw new WireShapeError(`OpenAI Responses reply: ${where} (function_call) has no name`);
  return { id: id ?? "", name: name ?? "", arguments: argumentsText(item.arguments), input: argumentsValue(item.arguments) };
}

/** One input item as a message: message items by role, a function call as an assistant entry, its output as a tool entry. */
export function decodeItem(item: unknown): WireMessage {
  if (typeof item === "string") return message("user", [{ type: "text", text: item }], item);
  if (!isDict(item)) return message("user", [], null);
  const type = str(item.type) ?? "message";
  if (type === "message") {
    const role = str(item.role) ?? "user";
    const content = (item.content ?? null) as Json;
    if (SYSTEM_ROLES.has(role)) return message("system", contentParts(content), content);
    return message(role === "assistant" ? "assistant" : "user", contentParts(content), content);
  }
  if (type === "function_call") return message("assistant", [{ type: "tool_call", call: functionCall(item, "input", false) }], null);
  if (type === "function_call_output") {
    const output = (item.output ?? null) as Json;
    return message(
      "tool",
      [
        {
          type: "tool_result",
          toolCallId: str(item.call_id) ?? "",
          output,
          text: typeof output === "string" ? output : partsText(output, "\n"),
        },
      ],
      output,
    );
  }
  if (type === "reasoning") return message("assistant", [{ type: "reasoning", text: reasoningText(item) }], null);
  return message("assistant", [{ type: "media", raw: item as Json }], null);
}

/** Transcript messages the loop froze are decoded once per run (see recurring-decode.ts). */
const recurringDecodeItem = recurringDecoder(decodeItem);

export function decodeRequest(body: Json): WireRequest {
  const b = asObject(body);
  const input = b.input;
  const req: WireRequest = {
    messages: typeof input === "string" ? [decodeItem(input)] : arr(input).map((m) => recurringDecodeItem(m)),
    tools: arr(b.tools)
      .map(toolDefFrom)
      .filter((t): t is WireToolDef => t !== undefined),
    settings: settingsOf(b, {
      maxTokens: num(b.max_output_tokens),
      temperature: num(b.temperature),
      topP: num(b.top_p),
      reasoningEffort: isDict(b.reasoning) ? str(b.reasoning.effort) : undefined,
    }),
    parameters: withoutKeys(b, ["input", "tools", "instructions"]),
  };
  if (typeof b.model === "string") req.model = b.model;
  const system = partsText(b.instructions, "\n");
  if (system !== "") req.system = system;
  const choice = toolChoiceFrom(b.tool_choice);
  if (choice !== undefined) req.toolChoice = choice;
  return req;
}

function toolEntries(tools: readonly WireToolDef[]): JsonObject[] {
  return tools.map((t) => {
    const entry: JsonObject = { type: "function", name: t.name };
    if (t.description !== undefined) entry.description = t.description;
    entry.parameters = t.inputSchema;
    return entry;
  });
}

function encodeToolChoice(choice: WireToolChoice): Json {
  return typeof choice === "string" ? choice : { type: "function", name: choice.name };
}

export function encodeRequest(o: EncodeRequestOptions): JsonObject {
  const body: JsonObject = { model: o.model };
  if (o.system !== undefined && o.system !== "") body.instructions = o.system;
  body.input = [...o.messages];
  if (o.tools.length > 0) {
    body.tools = toolEntries(o.tools);
    body.tool_choice = o.toolChoice !== undefined ? encodeToolChoice(o.toolChoice) : "auto";
  } else if (o.toolChoice !== undefined) {
    body.tool_choice = encodeToolChoice(o.toolChoice);
  }
  if (o.maxTokens !== undefined && o.maxTokens > 0) body.max_output_tokens = o.maxTokens;
  if (o.stream === true) body.stream = true;
  return body;
}

export function messageItem(text: string, id?: string): JsonObject {
  const item: JsonObject = { type: "message", role: "assistant", content: [{ type: "output_text", text, annotations: [] }] };
  if (id !== undefined) return { id, ...item, status: "completed" };
  return item;
}

export function callItem(c: WireToolCall, id?: string): JsonObject {
  const item: JsonObject = { type: "function_call", call_id: c.id, name: c.name, arguments: c.arguments };
  if (id !== undefined) return { id, ...item, status: "completed" };
  return item;
}

/** System messages are dropped (the system prompt travels in `instructions`). */
export function encodeMessages(messages: readonly WireMessage[]): Json[] {
  const out: Json[] = [];
  for (const m of messages) {
    if (m.role === "system") continue;
    if (m.role === "tool") {
      for (const p of m.parts)
        if (p.type === "tool_result")
          out.push({ type: "function_call_output", call_id: p.toolCallId, output: p.text !== "" ? p.text : resultText(p.output) });
    } else if (m.role === "assistant") {
      const text = textOfParts(m.parts, "");
      if (text !== "") out.push(messageItem(text));
      for (const p of m.parts) if (p.type === "tool_call") out.push(callItem(p.call));
    } else {
      out.push({ role: "user", content: textOfParts(m.parts, "") });
    }
  }
  return out;
}
