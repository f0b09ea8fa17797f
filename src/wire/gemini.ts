import type { Json, JsonObject } from "../events/json.js";
import { recurringDecoder } from "./recurring-decode.js";
import { WireShapeError, WireStreamError } from "./errors.js";
import { finishOnWire, replyFinish } from "./finish.js";
import { message, missingListReply, notAnObjectReply, replyIds, responseFromParts, resultText, textOfParts } from "./messages.js";
import { arr, asObject, errorEnvelopeMessage, isDict, nonEmptyStr, num, parseChunk, partsText, str, tokens } from "./read.js";
import type { Dict } from "./read.js";
import { settingsOf, stopList, toolDefFrom, withoutKeys } from "./request-common.js";
import { joinUrl } from "./urls.js";
import { buildUsage } from "./usage.js";
import type {
  EncodeRequestOptions,
  FinishKind,
  StreamAssembler,
  WireCodec,
  WireMessage,
  WirePart,
  WireRequest,
  WireResponse,
  WireStreamEvent,
  WireToolCall,
  WireToolChoice,
  WireToolDef,
  WireToolResult,
  WireUsage,
} from "./types.js";

/** Gemini `generateContent` / `streamGenerateContent`: contents and parts, functionCall / functionResponse, usageMetadata. */

const FINISH_WIRE: Record<FinishKind, string> = { stop: "STOP", length: "MAX_TOKENS", tool_calls: "STOP", content_filter: "SAFETY" };

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

function partOf(p: unknown, callId: (fc: Dict) => string): WirePart | undefined {
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

function decodeContent(c: unknown): WireMessage {
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

function decodeRequest(body: Json): WireRequest {
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

/** `promptTokenCount` already includes `cachedContentTokenCount`; output counts thoughts too. */
function decodeUsage(raw: unknown): WireUsage | undefined {
  if (!isDict(raw)) return undefined;
  const candidates = tokens(raw.candidatesTokenCount);
  const thoughts = tokens(raw.thoughtsTokenCount);
  const output = candidates === undefined && thoughts === undefined ? undefined : (candidates ?? 0) + (thoughts ?? 0);
  return buildUsage(
    raw,
    {
      input: tokens(raw.promptTokenCount),
      output,
      total: tokens(raw.totalTokenCount),
      cacheRead: tokens(raw.cachedContentTokenCount),
      reasoning: thoughts,
    },
    ["promptTokenCount", "candidatesTokenCount", "cachedContentTokenCount", "thoughtsTokenCount"],
  );
}

/**
 * A reply from its first candidate. Gemini may send function calls without ids: they get
 * `<responseId|call>_<n>`, written into the kept parts so the transcript answers them by id.
 */
function decodeResponse(body: unknown, strict = false): WireResponse {
  if (!isDict(body)) {
    if (strict) throw notAnObjectReply("Gemini", body);
    return responseFromParts([], {});
  }
  const responseId = str(body.responseId);
  const rest = replyIds(responseId, str(body.modelVersion) ?? body.model);
  const usage = decodeUsage(body.usageMetadata);
  if (usage) rest.usage = usage;
  const candidates = body.candidates;
  if (!Array.isArray(candidates) || candidates.length === 0) {
    const blocked = isDict(body.promptFeedback) ? str(body.promptFeedback.blockReason) : undefined;
    if (blocked !== undefined) return responseFromParts([], { ...rest, rawFinishReason: blocked, finish: "content_filter" });
    if (strict) throw missingListReply("Gemini", "candidates", body);
    return responseFromParts([], rest);
  }
  const candidate = candidates[0];
  const content = isDict(candidate) && isDict(candidate.content) ? candidate.content : {};
  const native: Json[] = [];
  const parts: WirePart[] = [];
  let n = 0;
  arr(content.parts).forEach((p, i) => {
    if (!isDict(p)) return;
    let kept: Dict = p;
    if (isDict(p.functionCall)) {
      if (strict && nonEmptyStr(p.functionCall.name) === undefined)
        throw new WireShapeError(`Gemini reply: candidates[0].content.parts[${i}].functionCall has no name`);
      const id = nonEmptyStr(p.functionCall.id) ?? `${responseId ?? "call"}_${n}`;
      n++;
      kept = { ...p, functionCall: { ...p.functionCall, id } };
    }
    const part = partOf(kept, (fc) => str(fc.id) ?? "");
    if (part) parts.push(part);
    native.push(kept as JsonObject);
  });
  const raw = isDict(candidate) ? str(candidate.finishReason) : undefined;
  if (raw !== undefined) rest.rawFinishReason = raw;
  const finish = replyFinish(
    raw,
    parts.some((p) => p.type === "tool_call"),
  );
  if (finish !== undefined) rest.finish = finish;
  return { ...responseFromParts(parts, rest), native };
}

/** `alt=sse` chunks, each a partial GenerateContentResponse: text parts are joined, the last chunk has finishReason and usage. */
function streamAssembler(): StreamAssembler {
  const parts: Dict[] = [];
  let last: Dict = {};
  let finishReason: string | undefined;
  let usage: unknown;
  return {
    // Usage can follow the finish reason: the stream is read to its end.
    finished: false,
    push(ev: WireStreamEvent): string[] {
      if (ev.data.trim() === "") return [];
      const chunk = parseChunk(ev.data, "Gemini stream chunk");
      const err = errorEnvelopeMessage(chunk);
      if (err !== undefined) throw new WireStreamError(`Gemini stream reported an error: ${err}`);
      last = chunk;
      if (isDict(chunk.usageMetadata)) usage = chunk.usageMetadata;
      const candidate = arr(chunk.candidates)[0];
      if (!isDict(candidate)) return [];
      finishReason = str(candidate.finishReason) ?? finishReason;
      const out: string[] = [];
      for (const p of arr(isDict(candidate.content) ? candidate.content.parts : [])) {
        if (!isDict(p)) continue;
        const prev = parts[parts.length - 1];
        if (
          typeof p.text === "string" &&
          prev !== undefined &&
          typeof prev.text === "string" &&
          prev.thought === p.thought &&
          p.thoughtSignature === undefined
        ) {
          prev.text += p.text;
        } else {
          parts.push({ ...p });
        }
        if (typeof p.text === "string" && p.thought !== true && p.text !== "") out.push(p.text);
      }
      return out;
    },
    incomplete: () => (finishReason !== undefined ? undefined : "Gemini stream ended before a finishReason (connection closed mid-reply)"),
    result(): WireResponse {
      parts.forEach((p, i) => {
        if (isDict(p.functionCall) && nonEmptyStr(p.functionCall.name) === undefined)
          throw new WireShapeError(`Gemini stream: functionCall part ${i} has no name`);
      });
      const body: Dict = { candidates: [{ content: { role: "model", parts }, finishReason: finishReason ?? null, index: 0 }] };
      if (usage !== undefined) body.usageMetadata = usage;
      if (last.modelVersion !== undefined) body.modelVersion = last.modelVersion;
      if (last.responseId !== undefined) body.responseId = last.responseId;
      return decodeResponse(body);
    },
  };
}

function encodeToolConfig(choice: WireToolChoice): JsonObject | undefined {
  if (choice === "auto") return undefined;
  if (choice === "none") return { functionCallingConfig: { mode: "NONE" } };
  if (choice === "required") return { functionCallingConfig: { mode: "ANY" } };
  return { functionCallingConfig: { mode: "ANY", allowedFunctionNames: [choice.name] } };
}

function encodeRequest(o: EncodeRequestOptions): JsonObject {
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

function callPart(c: WireToolCall): JsonObject {
  const args = isDict(c.input) ? (c.input as JsonObject) : {};
  const fc: JsonObject = { name: c.name, args };
  if (c.id !== "") fc.id = c.id;
  return { functionCall: fc };
}

/** A functionResponse needs the function's name: taken from the call it answers. */
function encodeMessages(messages: readonly WireMessage[]): Json[] {
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

function replyParts(r: WireResponse): Json[] {
  if (r.native !== undefined) return r.native;
  const parts: Json[] = [];
  for (const p of r.parts) {
    if (p.type === "text" && p.text !== "") parts.push({ text: p.text });
    else if (p.type === "reasoning") parts.push({ text: p.text, thought: true });
    else if (p.type === "tool_call") parts.push(callPart(p.call));
  }
  return parts;
}

function usageBody(u: WireUsage | undefined): JsonObject {
  const input = u?.inputTokens ?? 0;
  const output = u?.outputTokens ?? 0;
  const body: JsonObject = {
    promptTokenCount: input,
    candidatesTokenCount: output - (u?.reasoningTokens ?? 0),
    totalTokenCount: u?.totalTokens ?? input + output,
  };
  if (u?.cacheReadTokens !== undefined) body.cachedContentTokenCount = u.cacheReadTokens;
  if (u?.reasoningTokens !== undefined) body.thoughtsTokenCount = u.reasoningTokens;
  return body;
}

function finishWire(r: WireResponse): string {
  return finishOnWire(r, FINISH_WIRE);
}

function encodeResponse(r: WireResponse): JsonObject {
  return {
    candidates: [{ content: { role: "model", parts: replyParts(r) }, finishReason: finishWire(r), index: 0 }],
    usageMetadata: usageBody(r.usage),
    modelVersion: r.model ?? "",
    responseId: r.id ?? "",
  };
}

function encodeStream(r: WireResponse): WireStreamEvent[] {
  const chunk = (parts: Json[], extra: JsonObject = {}): WireStreamEvent => ({
    data: JSON.stringify({
      candidates: [{ content: { role: "model", parts }, index: 0, ...extra }],
      modelVersion: r.model ?? "",
      responseId: r.id ?? "",
    }),
  });
  const out: WireStreamEvent[] = [];
  const parts = replyParts(r);
  const calls = parts.filter((p) => isDict(p) && p.functionCall !== undefined);
  for (const p of parts) {
    const text = isDict(p) && typeof p.text === "string" && p.thought !== true ? p.text : undefined;
    if (text === undefined) continue;
    for (let i = 0; i < text.length; i += 8) out.push(chunk([{ text: text.slice(i, i + 8) }]));
  }
  const last = JSON.parse(chunk(calls, { finishReason: finishWire(r) }).data) as JsonObject;
  last.usageMetadata = usageBody(r.usage);
  out.push({ data: JSON.stringify(last) });
  return out;
}

export const geminiCodec: WireCodec = {
  dialect: "gemini",
  schema: { name: "gemini/generate-content", version: "1" },
  eventName: "gemini.generate_content",
  provider: "google",
  systemInTranscript: false,
  /** `{base}/v1beta/models/{model}:generateContent`, or under the base's own `/v1beta` or `/v1`; streams add `alt=sse`. */
  endpoint(baseUrl, model, stream) {
    const path = baseUrl.split(/[?#]/, 1)[0]!.replace(/\/+$/, "");
    const version = /\/v1(beta\d*)?$/.test(path) ? "" : "/v1beta";
    const url = joinUrl(baseUrl, `${version}/models/${encodeURIComponent(model)}:${stream ? "streamGenerateContent" : "generateContent"}`);
    if (!stream) return url;
    const hash = url.indexOf("#");
    const head = hash === -1 ? url : url.slice(0, hash);
    return `${head}${head.includes("?") ? "&" : "?"}alt=sse${hash === -1 ? "" : url.slice(hash)}`;
  },
  authHeaders: (apiKey): Record<string, string> => (apiKey ? { "x-goog-api-key": apiKey } : {}),
  decodeRequest,
  decodeMessages: (messages) => messages.map(decodeContent),
  decodeResponse,
  streamAssembler,
  looksLikeRequest: (b) => Array.isArray(b.contents),
  looksLikeResponse: (b) => Array.isArray(b.candidates) || isDict(b.usageMetadata) || isDict(b.promptFeedback),
  encodeRequest,
  encodeMessages,
  userMessage: (text) => ({ role: "user", parts: [{ text }] }),
  assistantMessages: (r) => [{ role: "model", parts: replyParts(r) }],
  toolResultMessages(results: readonly WireToolResult[]) {
    if (results.length === 0) return [];
    const parts: Json[] = results.map((r) => {
      const response: JsonObject = r.isError ? { error: r.output } : { output: r.output };
      return { functionResponse: { id: r.id, name: r.name, response } };
    });
    return [{ role: "user", parts }];
  },
  encodeResponse,
  encodeStream,
};
