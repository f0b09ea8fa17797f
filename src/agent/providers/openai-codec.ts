import type { Json, JsonObject } from "../../events/json.js";
import { ProviderResponseError } from "./errors.js";
import { mapFinishReason } from "./finish-reason.js";
import { parseOpenAiStream } from "./openai-stream.js";
import { openAiAssistantMessage, openAiUrl, openAiTools, openAiUsage } from "./openai-shared.js";
import { errorEnvelopeMessage, flattenText, isDict, kindOf, nonEmptyStr, parseArgs, str } from "./shape.js";
import type { Dict } from "./shape.js";
import type { BodyOptions, ParsedToolCall, ParsedTurn, ProviderCodec, ToolResultEntry } from "./types.js";

export const OPENAI_ROUTE = "openai.chat_completions";

function readToolCall(raw: unknown, i: number): ParsedToolCall {
  const where = `choices[0].message.tool_calls[${i}]`;
  if (!isDict(raw)) throw new ProviderResponseError(`OpenAI reply: ${where} is ${kindOf(raw)}, expected an object`);
  const id = nonEmptyStr(raw.id);
  if (id === undefined) throw new ProviderResponseError(`OpenAI reply: ${where} has no id`);
  const fn = raw.function;
  if (!isDict(fn)) throw new ProviderResponseError(`OpenAI reply: ${where} has no function object`);
  const name = nonEmptyStr(fn.name);
  if (name === undefined) throw new ProviderResponseError(`OpenAI reply: ${where}.function has no name`);
  // Some compatible servers send the arguments as an object rather than JSON text.
  const rawArgs = fn.arguments;
  const argumentsText = typeof rawArgs === "string" ? rawArgs : rawArgs === undefined || rawArgs === null ? "" : JSON.stringify(rawArgs);
  return { id, name, args: parseArgs(argumentsText), arguments: argumentsText };
}

function parseOpenAiResponse(body: unknown): ParsedTurn {
  if (!isDict(body)) throw new ProviderResponseError(`OpenAI reply is ${kindOf(body)}, expected a JSON object`);
  const model = str(body.model);
  const usage = openAiUsage(body.usage);
  const choices = body.choices;
  if (!Array.isArray(choices)) {
    const err = errorEnvelopeMessage(body);
    throw new ProviderResponseError(
      err !== undefined ? `OpenAI reply has no choices; provider error: ${err}` : "OpenAI reply has no choices array",
    );
  }
  if (choices.length === 0) {
    // No choices: the turn is done with "" (the loop finishes instead of failing).
    return { text: "", toolCalls: [], assistantMessage: openAiAssistantMessage("", []), usage, finishReason: "stop", model };
  }
  const choice: unknown = choices[0];
  if (!isDict(choice) || !isDict(choice.message)) {
    throw new ProviderResponseError("OpenAI reply has no choices[0].message object");
  }
  const message: Dict = choice.message;
  const text = flattenText(message.content);
  const rawCalls = message.tool_calls;
  if (rawCalls !== undefined && rawCalls !== null && !Array.isArray(rawCalls)) {
    throw new ProviderResponseError(`OpenAI reply: choices[0].message.tool_calls is ${kindOf(rawCalls)}, expected an array`);
  }
  const toolCalls = (rawCalls ?? []).map(readToolCall);
  const rawFinishReason = str(choice.finish_reason);
  return {
    text,
    toolCalls,
    assistantMessage: openAiAssistantMessage(text, toolCalls),
    usage,
    finishReason: mapFinishReason(rawFinishReason, toolCalls.length > 0),
    rawFinishReason,
    model,
  };
}

export const openaiCodec: ProviderCodec = {
  style: "openai",
  route: OPENAI_ROUTE,
  url: openAiUrl,

  authHeaders(apiKey): Record<string, string> {
    return apiKey ? { Authorization: `Bearer ${apiKey}` } : {};
  },

  startMessages({ systemPrompt, prompt, history }) {
    const user = { role: "user", content: prompt };
    if (history !== undefined && history.length > 0) return [...history, user];
    return systemPrompt !== "" ? [{ role: "system", content: systemPrompt }, user] : [user];
  },

  buildBody(opts: BodyOptions) {
    const body: JsonObject = { model: opts.model, messages: opts.messages as Json[] };
    if (opts.tools.length > 0) {
      body.tools = openAiTools(opts.tools);
      body.tool_choice = "auto";
    }
    if (opts.maxTokens !== undefined && opts.maxTokens > 0) body.max_tokens = opts.maxTokens;
    if (opts.stream === true) {
      body.stream = true;
      body.stream_options = { include_usage: true };
    }
    return body;
  },

  parseResponse: parseOpenAiResponse,

  toolResultMessages(results: ToolResultEntry[]) {
    // isError is not transmitted in this dialect.
    return results.map((r) => ({ role: "tool", tool_call_id: r.id, content: r.output }));
  },

  lastToolTurn(messages) {
    for (let i = messages.length - 1; i >= 0; i--) {
      const m = messages[i];
      if (!isDict(m) || m.role !== "assistant" || !Array.isArray(m.tool_calls) || m.tool_calls.length === 0) continue;
      const calls = m.tool_calls.map((c: unknown) => {
        const fn = isDict(c) && isDict(c.function) ? c.function : {};
        return { id: isDict(c) ? (str(c.id) ?? "") : "", name: str(fn.name) ?? "" };
      });
      return { index: i, calls };
    }
    return undefined;
  },

  parseStream: parseOpenAiStream,
};
