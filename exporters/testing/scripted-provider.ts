import { createServer } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Json } from "../../src/events/json.js";
import { check, declareOptions, is } from "../../src/events/option-spec.js";
import { codecForDialect, DIALECTS } from "../../src/wire/index.js";
import type { Dialect, WireCodec, WirePart, WireResponse, WireUsage } from "../../src/wire/index.js";

/** One model turn the scripted provider answers with. */
export interface ScriptedTurn {
  text?: string;
  toolCalls?: { id: string; name: string; arguments: Record<string, unknown> | string }[];
  /** `promptTokens` includes `cachedTokens` (cache reads), as relaytrace counts usage in every dialect */
  usage?: { promptTokens: number; completionTokens: number; cachedTokens?: number };
  /** Answer with this HTTP status and body instead of a model turn. */
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** Options of `startScriptedProvider`. */
export interface ScriptedProviderOptions {
  /** the wire to speak (default "openai"); every `createClient` style is served */
  style?: Dialect;
  /** Turns in order; a function picks the turn from the request body and its index. */
  turns: ScriptedTurn[] | ((body: unknown, index: number) => ScriptedTurn);
  /** Reply delay per request, in milliseconds. */
  delayMs?: number;
  model?: string;
}

const SCRIPTED_OPTIONS = declareOptions<ScriptedProviderOptions>("startScriptedProvider", {
  style: is.oneOf(...DIALECTS),
  turns: is.required(check("a list of turns or a function", (v) => Array.isArray(v) || typeof v === "function")),
  delayMs: is.nonNegativeNumber,
  model: is.string,
});

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
 * A real HTTP server on 127.0.0.1 (port chosen by the OS) that plays a model from a script, in
 * any dialect the wire codecs speak (Chat Completions, Responses, Anthropic Messages, Gemini):
 * no API key and no network beyond loopback. Streaming requests (`stream: true`, or Gemini's
 * `:streamGenerateContent`) are answered as server-sent events.
 */
export async function startScriptedProvider(options: ScriptedProviderOptions): Promise<ScriptedProvider> {
  SCRIPTED_OPTIONS.check(options);
  const style = options.style ?? "openai";
  const codec = codecForDialect(style);
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
      const stream = (body as { stream?: boolean } | undefined)?.stream === true || (req.url ?? "").includes(":streamGenerateContent");
      const send = () => reply(res, codec, model, turn, stream);
      if (options.delayMs) setTimeout(send, options.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: style === "openai" || style === "openai-responses" ? `http://127.0.0.1:${port}/v1` : `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function reply(res: ServerResponse, codec: WireCodec, model: string, turn: ScriptedTurn, stream: boolean): void {
  if (turn.status !== undefined) {
    res.writeHead(turn.status, { "content-type": "application/json", ...turn.headers });
    res.end(typeof turn.body === "string" ? turn.body : JSON.stringify(turn.body ?? {}));
    return;
  }
  const response = scriptedResponse(model, turn);
  if (stream) {
    res.writeHead(200, { "content-type": "text/event-stream", ...turn.headers });
    for (const ev of codec.encodeStream(response)) res.write(`${ev.event ? `event: ${ev.event}\n` : ""}data: ${ev.data}\n\n`);
    res.end();
    return;
  }
  res.writeHead(200, { "content-type": "application/json", ...turn.headers });
  res.end(JSON.stringify(codec.encodeResponse(response)));
}

/** A script turn as a decoded reply, which the dialect's codec then writes on its wire. */
function scriptedResponse(model: string, turn: ScriptedTurn): WireResponse {
  const usage = turn.usage ?? { promptTokens: 10, completionTokens: 5 };
  const parts: WirePart[] = [];
  if (turn.text) parts.push({ type: "text", text: turn.text });
  for (const c of turn.toolCalls ?? []) {
    const text = typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments);
    parts.push({
      type: "tool_call",
      call: {
        id: c.id,
        name: c.name,
        arguments: text,
        input: typeof c.arguments === "string" ? (JSON.parse(c.arguments) as Json) : (c.arguments as Json),
      },
    });
  }
  const calls = turn.toolCalls ?? [];
  const wireUsage: WireUsage = {
    inputTokens: usage.promptTokens,
    outputTokens: usage.completionTokens,
    totalTokens: usage.promptTokens + usage.completionTokens,
  };
  if (usage.cachedTokens !== undefined) wireUsage.cacheReadTokens = usage.cachedTokens;
  return {
    id: "scripted-1",
    model,
    parts,
    text: turn.text ?? "",
    toolCalls: parts.flatMap((p) => (p.type === "tool_call" ? [p.call] : [])),
    finish: calls.length > 0 ? "tool_calls" : "stop",
    usage: wireUsage,
  };
}
