import type { Json, JsonObject } from "../events/json.js";
import { WireShapeError, WireStreamError } from "./errors.js";
import { finishOnWire, replyFinish } from "./finish.js";
import { missingListReply, notAnObjectReply, replyIds, responseFromParts } from "./messages.js";
import { arr, errorEnvelopeMessage, isDict, nonEmptyStr, parseChunk, str, tokens } from "./read.js";
import type { Dict } from "./read.js";
import { buildUsage } from "./usage.js";
import type { FinishKind, StreamAssembler, WirePart, WireResponse, WireStreamEvent, WireUsage } from "./types.js";
import { callPart, partOf } from "./gemini-request.js";

/** Gemini replies: response bodies and streams, decoded, assembled and encoded. */

/** Gemini `generateContent` / `streamGenerateContent`: contents and parts, functionCall / functionResponse, usageMetadata. */

const FINISH_WIRE: Record<FinishKind, string> = { stop: "STOP", length: "MAX_TOKENS", tool_calls: "STOP", content_filter: "SAFETY" };

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
export function decodeResponse(body: unknown, strict = false): WireResponse {
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
export function streamAssembler(): StreamAssembler {
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

export function replyParts(r: WireResponse): Json[] {
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

export function encodeResponse(r: WireResponse): JsonObject {
  return {
    candidates: [{ content: { role: "model", parts: replyParts(r) }, finishReason: finishWire(r), index: 0 }],
    usageMetadata: usageBody(r.usage),
    modelVersion: r.model ?? "",
    responseId: r.id ?? "",
  };
}

export function encodeStream(r: WireResponse): WireStreamEvent[] {
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
