import { createServer } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One model turn the scripted provider answers with. */
export interface ScriptedTurn {
  text?: string;
  toolCalls?: { id: string; name: string; arguments: Record<string, unknown> | string }[];
  usage?: { promptTokens: number; completionTokens: number; cachedTokens?: number };
  /** Answer with this HTTP status and body instead of a model turn. */
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** Options of `startScriptedProvider`. */
export interface ScriptedProviderOptions {
  style?: "openai" | "anthropic";
  /** Turns in order; a function picks the turn from the request body and its index. */
  turns: ScriptedTurn[] | ((body: unknown, index: number) => ScriptedTurn);
  /** Reply delay per request, in milliseconds. */
  delayMs?: number;
  model?: string;
}

/** One request the scripted provider received (body parsed as JSON, undefined if it was not JSON). */
export interface RecordedProviderRequest {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/** A running scripted provider: its base URL, the requests it received, and `close()`. */
export interface ScriptedProvider {
  /** Base URL for `createClient({ baseUrl })`. */
  readonly url: string;
  readonly requests: RecordedProviderRequest[];
  close(): Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1 (port chosen by the OS) that plays an OpenAI- or
 * Anthropic-style model from a script: no API key and no network beyond loopback.
 * Streaming requests (`stream: true`) are answered as server-sent events.
 */
export async function startScriptedProvider(options: ScriptedProviderOptions): Promise<ScriptedProvider> {
  const style = options.style ?? "openai";
  const model = options.model ?? "scripted-model";
  const requests: RecordedProviderRequest[] = [];
  let index = 0;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        body = undefined;
      }
      requests.push({ path: req.url ?? "", headers: req.headers, body });
      const i = index++;
      const turn =
        typeof options.turns === "function"
          ? options.turns(body, i)
          : (options.turns[i] ?? { status: 500, body: { error: { message: `scripted provider has no turn ${i + 1}` } } });
      const send = () => reply(res, style, model, turn, (body as { stream?: boolean } | undefined)?.stream === true);
      if (options.delayMs) setTimeout(send, options.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: style === "openai" ? `http://127.0.0.1:${port}/v1` : `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function reply(res: ServerResponse, style: "openai" | "anthropic", model: string, turn: ScriptedTurn, stream: boolean): void {
  if (turn.status !== undefined) {
    res.writeHead(turn.status, { "content-type": "application/json", ...turn.headers });
    res.end(typeof turn.body === "string" ? turn.body : JSON.stringify(turn.body ?? {}));
    return;
  }
  const usage = turn.usage ?? { promptTokens: 10, completionTokens: 5 };
  if (stream) {
    res.writeHead(200, { "content-type": "text/event-stream", ...turn.headers });
    for (const line of style === "openai" ? openaiStream(model, turn, usage) : anthropicStream(model, turn, usage)) res.write(line);
    res.end();
    return;
  }
  res.writeHead(200, { "content-type": "application/json", ...turn.headers });
  res.end(JSON.stringify(style === "openai" ? openaiBody(model, turn, usage) : anthropicBody(model, turn, usage)));
}

function argumentsText(args: Record<string, unknown> | string): string {
  return typeof args === "string" ? args : JSON.stringify(args);
}

function openaiBody(model: string, turn: ScriptedTurn, usage: NonNullable<ScriptedTurn["usage"]>): unknown {
  const calls = turn.toolCalls ?? [];
  return {
    id: "chatcmpl-scripted",
    object: "chat.completion",
    model,
    choices: [
      {
        index: 0,
        finish_reason: calls.length > 0 ? "tool_calls" : "stop",
        message: {
          role: "assistant",
          content: turn.text ?? (calls.length > 0 ? null : ""),
          ...(calls.length > 0
            ? { tool_calls: calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: argumentsText(c.arguments) } })) }
            : {}),
        },
      },
    ],
    usage: {
      prompt_tokens: usage.promptTokens,
      completion_tokens: usage.completionTokens,
      total_tokens: usage.promptTokens + usage.completionTokens,
      ...(usage.cachedTokens !== undefined ? { prompt_tokens_details: { cached_tokens: usage.cachedTokens } } : {}),
    },
  };
}

function anthropicBody(model: string, turn: ScriptedTurn, usage: NonNullable<ScriptedTurn["usage"]>): unknown {
  const calls = turn.toolCalls ?? [];
  const content: unknown[] = [];
  if (turn.text) content.push({ type: "text", text: turn.text });
  for (const c of calls) {
    content.push({ type: "tool_use", id: c.id, name: c.name, input: typeof c.arguments === "string" ? JSON.parse(c.arguments) : c.arguments });
  }
  return {
    id: "msg_scripted",
    type: "message",
    role: "assistant",
    model,
    content,
    stop_reason: calls.length > 0 ? "tool_use" : "end_turn",
    usage: {
      input_tokens: usage.promptTokens,
      output_tokens: usage.completionTokens,
      ...(usage.cachedTokens !== undefined ? { cache_read_input_tokens: usage.cachedTokens } : {}),
    },
  };
}

function sse(data: unknown, event?: string): string {
  return `${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`;
}

function openaiStream(model: string, turn: ScriptedTurn, usage: NonNullable<ScriptedTurn["usage"]>): string[] {
  const base = { id: "chatcmpl-scripted", object: "chat.completion.chunk", model };
  const out: string[] = [];
  const text = turn.text ?? "";
  for (let i = 0; i < text.length; i += 8) {
    out.push(sse({ ...base, choices: [{ index: 0, delta: { content: text.slice(i, i + 8) }, finish_reason: null }] }));
  }
  (turn.toolCalls ?? []).forEach((c, i) => {
    out.push(sse({ ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: i, id: c.id, type: "function", function: { name: c.name, arguments: argumentsText(c.arguments) } }] }, finish_reason: null }] }));
  });
  out.push(sse({ ...base, choices: [{ index: 0, delta: {}, finish_reason: (turn.toolCalls ?? []).length > 0 ? "tool_calls" : "stop" }] }));
  out.push(sse({ ...base, choices: [], usage: { prompt_tokens: usage.promptTokens, completion_tokens: usage.completionTokens, total_tokens: usage.promptTokens + usage.completionTokens } }));
  out.push("data: [DONE]\n\n");
  return out;
}

function anthropicStream(model: string, turn: ScriptedTurn, usage: NonNullable<ScriptedTurn["usage"]>): string[] {
  const out = [sse({ type: "message_start", message: { id: "msg_scripted", type: "message", role: "assistant", model, content: [], usage: { input_tokens: usage.promptTokens, output_tokens: 0 } } }, "message_start")];
  let index = 0;
  if (turn.text) {
    out.push(sse({ type: "content_block_start", index, content_block: { type: "text", text: "" } }, "content_block_start"));
    out.push(sse({ type: "content_block_delta", index, delta: { type: "text_delta", text: turn.text } }, "content_block_delta"));
    out.push(sse({ type: "content_block_stop", index }, "content_block_stop"));
    index++;
  }
  for (const c of turn.toolCalls ?? []) {
    out.push(sse({ type: "content_block_start", index, content_block: { type: "tool_use", id: c.id, name: c.name, input: {} } }, "content_block_start"));
    out.push(sse({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: argumentsText(c.arguments) } }, "content_block_delta"));
    out.push(sse({ type: "content_block_stop", index }, "content_block_stop"));
    index++;
  }
  out.push(sse({ type: "message_delta", delta: { stop_reason: (turn.toolCalls ?? []).length > 0 ? "tool_use" : "end_turn" }, usage: { output_tokens: usage.completionTokens } }, "message_delta"));
  out.push(sse({ type: "message_stop" }, "message_stop"));
  return out;
}
