import type { Json, JsonObject } from "../../events/json.js";
import { cachedTokensOf, codecForDialect, WireShapeError } from "../../wire/index.js";
import type { WireCodec, WireResponse, WireToolCall, WireUsage } from "../../wire/index.js";
import { ProviderConnectionError, ProviderResponseError } from "./errors.js";
import type { BodyOptions, ParsedToolCall, ParsedTurn, ProviderCodec, ProviderStyle, SseEvent, StreamDelta, Usage } from "./types.js";

/** The loop's view of a dialect: everything it reads or writes on the wire goes through `src/wire`. */

function usageOf(u: WireUsage | undefined): Usage {
  const promptTokens = u?.inputTokens ?? 0;
  const completionTokens = u?.outputTokens ?? 0;
  const usage: Usage = { promptTokens, completionTokens, totalTokens: u?.totalTokens ?? promptTokens + completionTokens };
  const cached = cachedTokensOf(u);
  if (cached !== undefined) usage.cachedTokens = cached;
  return usage;
}

function parsedCall(c: WireToolCall): ParsedToolCall {
  const args = typeof c.input === "object" && c.input !== null && !Array.isArray(c.input) ? (c.input as Record<string, unknown>) : {};
  return { id: c.id, name: c.name, args, arguments: c.arguments };
}

function turnOf(wire: WireCodec, response: WireResponse): ParsedTurn {
  const turn: ParsedTurn = {
    text: response.text,
    toolCalls: response.toolCalls.map(parsedCall),
    assistantMessages: wire.assistantMessages(response),
    usage: usageOf(response.usage),
    finishReason: response.finish ?? "stop",
    response,
  };
  if (response.rawFinishReason !== undefined) turn.rawFinishReason = response.rawFinishReason;
  if (response.model !== undefined) turn.model = response.model;
  return turn;
}

/** A wire codec's shape complaint becomes the loop's provider error; anything else passes through. */
function providerError(err: unknown): unknown {
  return err instanceof WireShapeError ? new ProviderResponseError(err.message) : err;
}

/** The entries of the assistant turn with tool calls that ends at or before `end`: [first, last]. */
function turnBounds(wire: WireCodec, messages: unknown[], end: number): [number, number] | undefined {
  const decoded = wire.decodeMessages(messages);
  let last = -1;
  for (let i = Math.min(end, decoded.length - 1); i >= 0; i--) {
    if (decoded[i]!.role === "assistant" && decoded[i]!.parts.some((p) => p.type === "tool_call")) {
      last = i;
      break;
    }
  }
  if (last < 0) return undefined;
  // A Responses reply is several entries (reasoning, message, function calls): take them all.
  while (last + 1 <= end && last + 1 < decoded.length && decoded[last + 1]!.role === "assistant") last++;
  let first = last;
  while (first - 1 >= 0 && decoded[first - 1]!.role === "assistant") first--;
  return [first, last];
}

function callsIn(wire: WireCodec, messages: unknown[], first: number, last: number): ParsedToolCall[] {
  const calls: ParsedToolCall[] = [];
  for (const m of wire.decodeMessages(messages.slice(first, last + 1))) {
    for (const p of m.parts) if (p.type === "tool_call") calls.push(parsedCall(p.call));
  }
  return calls;
}

/** The first messages of a run: the history (if any) and the user's prompt; the system prompt where the dialect puts it. */
function startMessages(wire: WireCodec, { systemPrompt, prompt, history }: Parameters<ProviderCodec["startMessages"]>[0]): unknown[] {
  const user = wire.userMessage(prompt);
  if (history !== undefined && history.length > 0) return [...history, user];
  // Other dialects carry the system prompt in the body, on every call.
  if (wire.systemInTranscript && systemPrompt !== "") return [{ role: "system", content: systemPrompt }, user];
  return [user];
}

/** A model call's request body, in the dialect's shape. */
function requestBody(wire: WireCodec, opts: BodyOptions): JsonObject {
  return wire.encodeRequest({
    model: opts.model,
    system: opts.systemPrompt,
    messages: opts.messages as Json[],
    tools: opts.tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema, raw: null })),
    ...(opts.maxTokens !== undefined ? { maxTokens: opts.maxTokens } : {}),
    ...(opts.stream === true ? { stream: true } : {}),
  });
}

/** The tool results in the messages after `index`, by tool call id. */
function toolResultsAfter(wire: WireCodec, messages: unknown[], index: number): Map<string, { output: string; isError: boolean }> {
  const out = new Map<string, { output: string; isError: boolean }>();
  for (const m of wire.decodeMessages(messages.slice(index + 1))) {
    for (const p of m.parts) {
      if (p.type !== "tool_result") continue;
      out.set(p.toolCallId, {
        output: p.text !== "" || typeof p.output === "string" ? p.text : JSON.stringify(p.output),
        isError: p.isError === true,
      });
    }
  }
  return out;
}

/** A streamed reply: its first chunk and text deltas as they come, then the assembled turn. */
async function* parseStream(wire: WireCodec, events: AsyncIterable<SseEvent>): AsyncGenerator<StreamDelta, ParsedTurn> {
  const assembler = wire.streamAssembler();
  let first = true;
  for await (const ev of events) {
    let deltas: string[];
    try {
      deltas = assembler.push(ev);
    } catch (err) {
      throw providerError(err);
    }
    if (first && ev.data.trim() !== "") {
      first = false;
      yield { type: "first_chunk" };
    }
    for (const delta of deltas) yield { type: "text", delta };
    if (assembler.finished) break;
  }
  const cut = assembler.incomplete();
  if (cut !== undefined) throw new ProviderConnectionError(cut);
  try {
    return turnOf(wire, assembler.result());
  } catch (err) {
    throw providerError(err);
  }
}

/** Makes the loop's codec for a dialect. */
export function providerCodec(wire: WireCodec): ProviderCodec {
  return {
    style: wire.dialect,
    route: wire.eventName,
    wire,
    url: (baseUrl, model = "", stream = false) => wire.endpoint(baseUrl, model, stream),
    authHeaders: (apiKey) => wire.authHeaders(apiKey),
    startMessages: (opts) => startMessages(wire, opts),
    buildBody: (opts) => requestBody(wire, opts),
    parseResponse(body) {
      try {
        return turnOf(wire, wire.decodeResponse(body, true));
      } catch (err) {
        throw providerError(err);
      }
    },
    toolResultMessages: (results) => wire.toolResultMessages(results),
    lastToolTurn(messages) {
      const bounds = turnBounds(wire, messages, messages.length - 1);
      return bounds ? { index: bounds[1], calls: callsIn(wire, messages, bounds[0], bounds[1]) } : undefined;
    },
    toolCallsAt(messages, index) {
      const bounds = turnBounds(wire, messages, index);
      return bounds ? callsIn(wire, messages, bounds[0], bounds[1]) : [];
    },
    toolResultsAfter: (messages, index) => toolResultsAfter(wire, messages, index),
    parseStream: (events) => parseStream(wire, events),
  };
}

const CODECS = new Map<string, ProviderCodec>();

/** The loop's codec for a provider style; an unknown style is a caller error that names the choices. */
export function codecFor(style: ProviderStyle): ProviderCodec {
  let codec = CODECS.get(style);
  if (codec === undefined) {
    codec = providerCodec(codecForDialect(style));
    CODECS.set(style, codec);
  }
  return codec;
}

export const openaiCodec: ProviderCodec = codecFor("openai");
export const anthropicCodec: ProviderCodec = codecFor("anthropic");
export const OPENAI_ROUTE = openaiCodec.route;
export const ANTHROPIC_ROUTE = anthropicCodec.route;
