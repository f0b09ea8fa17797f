import type { Json, JsonObject } from "../events/json.js";
import { message, resultText, textOfParts } from "./messages.js";
import { arr, asObject, isDict, num, partsText, str } from "./read.js";
import type { Dict } from "./read.js";
import { recurringDecoder } from "./recurring-decode.js";
import { settingsOf, stopList, toolChoiceFrom, toolDefFrom, withoutKeys } from "./request-common.js";
import type { EncodeRequestOptions, WireMessage, WirePart, WireRequest, WireToolCall, WireToolChoice, WireToolDef } from "./types.js";

/** Anthropic Messages requests: the body and transcript messages, decoded and encoded. */

export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;

/** A `tool_use` block as a tool call (its input kept as the arguments' JSON text too); replies carry the same blocks. */
export function toolUse(block: Dict): WireToolCall {
  const input = (block.input ?? {}) as Json;
  return { id: str(block.id) ?? "", name: str(block.name) ?? "", arguments: JSON.stringify(input), input };
}

function blockPart(b: unknown): WirePart | undefined {
  if (typeof b === "string") return { type: "text", text: b };
  if (!isDict(b)) return undefined;
  switch (b.type) {
    case "text":
      return { type: "text", text: str(b.text) ?? "" };
    case "tool_use":
      return { type: "tool_call", call: toolUse(b) };
    case "thinking":
      return { type: "reasoning", text: str(b.thinking) ?? "" };
    case "tool_result": {
      const content = (b.content ?? null) as Json;
      const part: WirePart = { type: "tool_result", toolCallId: str(b.tool_use_id) ?? "", output: content, text: partsText(content, "\n") };
      if (b.is_error === true) part.isError = true;
      return part;
    }
    default:
      return { type: "media", raw: b as Json };
  }
}

export function decodeMessage(m: unknown): WireMessage {
  if (!isDict(m)) return message("user", [], null);
  const content = (m.content ?? null) as Json;
  const parts =
    typeof content === "string"
      ? content === ""
        ? []
        : [{ type: "text" as const, text: content }]
      : arr(content)
          .map(blockPart)
          .filter((p): p is WirePart => p !== undefined);
  if (m.role === "assistant") return message("assistant", parts, content);
  const onlyResults = parts.length > 0 && parts.every((p) => p.type === "tool_result");
  return message(onlyResults ? "tool" : "user", parts, content);
}

/** Transcript messages the loop froze are decoded once per run (see recurring-decode.ts). */
const recurringDecodeMessage = recurringDecoder(decodeMessage);

export function decodeRequest(body: Json): WireRequest {
  const b = asObject(body);
  const req: WireRequest = {
    messages: arr(b.messages).map((m) => recurringDecodeMessage(m)),
    tools: arr(b.tools)
      .map(toolDefFrom)
      .filter((t): t is WireToolDef => t !== undefined),
    settings: settingsOf(b, {
      maxTokens: num(b.max_tokens),
      temperature: num(b.temperature),
      topP: num(b.top_p),
      topK: num(b.top_k),
      stop: stopList(b.stop_sequences),
    }),
    parameters: withoutKeys(b, ["messages", "tools", "system"]),
  };
  if (typeof b.model === "string") req.model = b.model;
  const system = partsText(b.system, "\n");
  if (system !== "") req.system = system;
  const choice = toolChoiceFrom(b.tool_choice);
  if (choice !== undefined) req.toolChoice = choice;
  return req;
}

function encodeToolChoice(choice: WireToolChoice): JsonObject | undefined {
  if (choice === "required") return { type: "any" };
  if (choice === "none") return { type: "none" };
  if (choice === "auto") return undefined;
  return { type: "tool", name: choice.name };
}

function toolEntries(tools: readonly WireToolDef[]): JsonObject[] {
  return tools.map((t) => {
    const entry: JsonObject = { name: t.name };
    if (t.description !== undefined) entry.description = t.description;
    entry.input_schema = t.inputSchema;
    return entry;
  });
}

export function encodeRequest(o: EncodeRequestOptions): JsonObject {
  const body: JsonObject = {
    model: o.model,
    max_tokens: o.maxTokens !== undefined && o.maxTokens > 0 ? o.maxTokens : ANTHROPIC_DEFAULT_MAX_TOKENS,
  };
  if (o.system !== undefined && o.system !== "") body.system = o.system;
  body.messages = [...o.messages];
  if (o.tools.length > 0) body.tools = toolEntries(o.tools);
  const choice = o.toolChoice !== undefined ? encodeToolChoice(o.toolChoice) : undefined;
  if (choice !== undefined) body.tool_choice = choice;
  if (o.stream === true) body.stream = true;
  return body;
}

/** A tool call as the `tool_use` block sent back in the transcript. */
export function callBlock(c: WireToolCall): JsonObject {
  const input = typeof c.input === "object" && c.input !== null && !Array.isArray(c.input) ? c.input : {};
  return { type: "tool_use", id: c.id, name: c.name, input };
}

/** Consecutive tool messages merge into ONE user message of tool_result blocks; empty assistant turns are dropped. */
export function encodeMessages(messages: readonly WireMessage[]): Json[] {
  const out: Json[] = [];
  let results: JsonObject[] = [];
  const flush = () => {
    if (results.length > 0) out.push({ role: "user", content: results });
    results = [];
  };
  for (const m of messages) {
    if (m.role === "system") continue;
    if (m.role === "tool") {
      for (const p of m.parts) {
        if (p.type !== "tool_result") continue;
        const block: JsonObject = {
          type: "tool_result",
          tool_use_id: p.toolCallId,
          content: p.text !== "" ? p.text : resultText(p.output),
        };
        if (p.isError === true) block.is_error = true;
        results.push(block);
      }
      continue;
    }
    flush();
    if (m.role === "assistant") {
      const blocks: Json[] = [];
      const text = textOfParts(m.parts, "");
      if (text !== "") blocks.push({ type: "text", text });
      for (const p of m.parts) if (p.type === "tool_call") blocks.push(callBlock(p.call));
      if (blocks.length > 0) out.push({ role: "assistant", content: blocks });
    } else {
      out.push({ role: "user", content: textOfParts(m.parts, "") });
    }
  }
  flush();
  return out;
}
