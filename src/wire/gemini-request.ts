import type { Json, JsonObject } from "../events/json.js";
import { recurringDecoder } from "./recurring-decode.js";
import { message, resultText, textOfParts } from "./messages.js";
import { arr, asObject, isDict, num, partsText, str } from "./read.js";
import type { Dict } from "./read.js";
import { settingsOf, stopList, toolDefFrom, withoutKeys } from "./request-common.js";
import type { EncodeRequestOptions, WireMessage, WirePart, WireRequest, WireToolCall, WireToolChoice, WireToolDef } from "./types.js";

/** Gemini requests: contents and the request body, decoded and encoded. */

function callOf(fc: Dict, id: string): WireToolCall {
  const args = (fc.args ?? {}) as Json;
  return { id, name: str(fc.name) ?? "", arguments: JSON.stringify(args), input: args };
}

/** A functionResponse's output: `response.output` (or `.error`) when it is text, else the whole response. */
function responseText(response: unknown): string {
  if (isDict(response)) {
    if (typeof response.output === "string") return response.output;
    if (typeof response.error === "string") return response.error;
  }
  return resultText(response as Json);
}

export function partOf(p: unknown, callId: (fc: Dict) => string): WirePart | undefined {
  if (!isDict(p)) return undefined;
  if (typeof p.text === "string") return p.thought === true ? { type: "reasoning", text: p.text } : { type: "text", text: p.text };
  if (isDict(p.functionCall)) return { type: "tool_call", call: callOf(p.functionCall, callId(p.functionCall)) };
  if (isDict(p.functionResponse)) {
    const fr = p.functionResponse;
    const output = (fr.response ?? null) as Json;
    const part: WirePart = { type: "tool_result", toolCallId: str(fr.id) ?? str(fr.name) ?? "", output, text: responseText(output) };
    if (typeof fr.name === "string") part.name = fr.name;
    if (isDict(output) && output.error !== undefined && output.output === undefined) part.isError = true;
    return part;
  }
  return { type: "media", raw: p as Json };
}

export function decodeContent(c: unknown): WireMessage {
  if (!isDict(c)) return message("user", [], null);
  const raw = (c.parts ?? null) as Json;
  const parts = arr(raw)
    .map((p) => partOf(p, (fc) => str(fc.id) ?? ""))
    .filter((p): p is WirePart => p !== undefined);
  if (c.role === "model") return message("assistant", parts, raw);
  const onlyResults = parts.length > 0 && parts.every((p) => p.type === "tool_result");
  return message(onlyResults ? "tool" : "user", parts, raw);
}

function toolChoiceOf(config: unknown): WireToolChoice | undefined {
  const fcc = isDict(config) && isDict(config.functionCallingConfig) ? config.functionCallingConfig : undefined;
  if (fcc === undefined) return undefined;
  const names = arr(fcc.allowedFunctionNames).filter((n): n is string => typeof n === "string");
  if (fcc.mode === "ANY") return names.length === 1 ? { name: names[0]! } : "required";
  if (fcc.mode === "NONE") return "none";
  if (fcc.mode === "AUTO") return "auto";
  return undefined;
}

/** Transcript messages the loop froze are decoded once per run (see recurring-decode.ts). */
const recurringDecodeContent = recurringDecoder(decodeContent);

export function decodeRequest(body: Json): WireRequest {
  const b = asObject(body);
  const g = isDict(b.generationConfig) ? b.generationConfig : {};
  const thinking = isDict(g.thinkingConfig) ? g.thinkingConfig : {};
  const req: WireRequest = {
    messages: arr(b.contents).map((m) => recurringDecodeContent(m)),
    tools: arr(b.tools)
      .flatMap((t) => (isDict(t) ? arr(t.functionDeclarations) : []))
      .map(toolDefFrom)
      .filter((t): t is WireToolDef => t !== undefined),
    settings: settingsOf(b, {
      maxTokens: num(g.maxOutputTokens),
      temperature: num(g.temperature),
      topP: num(g.topP),
      topK: num(g.topK),
      stop: stopList(g.stopSequences),
      seed: num(g.seed),
      frequencyPenalty: num(g.frequencyPenalty),
      presencePenalty: num(g.presencePenalty),
      choiceCount: num(g.candidateCount),
      reasoningEffort: str(thinking.thinkingLevel),
    }),
    parameters: withoutKeys(b, ["contents", "tools", "systemInstruction", "system_instruction"]),
  };
  if (typeof b.model === "string") req.model = b.model.replace(/^models\//, "");
  const instruction = b.systemInstruction ?? b.system_instruction;
  const system = isDict(instruction) ? partsText(instruction.parts, "\n") : partsText(instruction, "\n");
  if (system !== "") req.system = system;
  const choice = toolChoiceOf(b.toolConfig);
  if (choice !== undefined) req.toolChoice = choice;
  return req;
}

function encodeToolConfig(choice: WireToolChoice): JsonObject | undefined {
  if (choice === "auto") return undefined;
  if (choice === "none") return { functionCallingConfig: { mode: "NONE" } };
  if (choice === "required") return { functionCallingConfig: { mode: "ANY" } };
  return { functionCallingConfig: { mode: "ANY", allowedFunctionNames: [choice.name] } };
}

export function encodeRequest(o: EncodeRequestOptions): JsonObject {
  const body: JsonObject = { contents: [...o.messages] };
  if (o.system !== undefined && o.system !== "") body.systemInstruction = { parts: [{ text: o.system }] };
  if (o.tools.length > 0) {
    body.tools = [
      {
        functionDeclarations: o.tools.map((t) => {
          const decl: JsonObject = { name: t.name };
          if (t.description !== undefined) decl.description = t.description;
          decl.parameters = t.inputSchema;
          return decl;
        }),
      },
    ];
  }
  const config = o.toolChoice !== undefined ? encodeToolConfig(o.toolChoice) : undefined;
  if (config !== undefined) body.toolConfig = config;
  if (o.maxTokens !== undefined && o.maxTokens > 0) body.generationConfig = { maxOutputTokens: o.maxTokens };
  return body;
}

export function callPart(c: WireToolCall): JsonObject {
  const args = isDict(c.input) ? (c.input as JsonObject) : {};
  const fc: JsonObject = { name: c.name, args };
  if (c.id !== "") fc.id = c.id;
  return { functionCall: fc };
}

/** A functionResponse needs the function's name: taken from the call it answers. */
export function encodeMessages(messages: readonly WireMessage[]): Json[] {
  const out: Json[] = [];
  const names = new Map<string, string>();
  for (const m of messages) {
    if (m.role === "system") continue;
    if (m.role === "tool") {
      const parts = m.parts.flatMap((p) => {
        if (p.type !== "tool_result") return [];
        const text = p.text !== "" ? p.text : resultText(p.output);
        const response: JsonObject = p.isError === true ? { error: text } : { output: text };
        return [{ functionResponse: { id: p.toolCallId, name: p.name ?? names.get(p.toolCallId) ?? p.toolCallId, response } }];
      });
      if (parts.length > 0) out.push({ role: "user", parts });
    } else if (m.role === "assistant") {
      const parts: Json[] = [];
      const text = textOfParts(m.parts, "");
      if (text !== "") parts.push({ text });
      for (const p of m.parts) {
        if (p.type !== "tool_call") continue;
        names.set(p.call.id, p.call.name);
        parts.push(callPart(p.call));
      }
      if (parts.length > 0) out.push({ role: "model", parts });
    } else {
      out.push({ role: "user", parts: [{ text: textOfParts(m.parts, "") }] });
    }
  }
  return out;
}
