import type { JsonObject } from "../events/json.js";
import { pending, type Answer, type Request, type ToolResult } from "./pending.js";
import { argumentsError, checkToolName, compileArgsValidator, EMPTY_OBJECT_SCHEMA, type Tool, type ToolContext } from "./tool.js";

/** Request kind of a relayed call. */
export const RELAY_KIND = "tool_call";
/** Answer.data key: the host's tool output. */
export const RELAY_OUTPUT_KEY = "output";
/** Answer.data key: whether the host's tool failed. */
export const RELAY_IS_ERROR_KEY = "isError";

/** One relayed call: what the host must execute. */
export interface RelayCall {
  /** The provider's tool-call id, the tool_result correlation key (stamped by the loop). */
  id: string;
  name: string;
  input: Record<string, unknown>;
  /** The raw arguments JSON text, so an OpenAI-shaped caller can echo it. */
  arguments: string;
}

/** One host result in `Answer.data.results`. */
export interface RelayResult {
  id: string;
  output: string;
  isError?: boolean;
}

/** True when `req` is a relay request (`kind: "tool_call"`): the host must run its calls and answer with `relayAnswer`. */
export function isRelayRequest(req: Request | undefined | null): boolean {
  return !!req && req.kind === RELAY_KIND;
}

/** The calls a relay request carries, in call order, each with the provider call id to answer (empty for any other request). */
export function relayCallsOf(req: Request | undefined | null): RelayCall[] {
  if (!isRelayRequest(req)) return [];
  const calls = req!.data?.calls;
  if (!Array.isArray(calls)) return [];
  const out: RelayCall[] = [];
  for (const c of calls) {
    if (typeof c !== "object" || c === null) continue;
    const call = c as Partial<RelayCall>;
    out.push({
      id: typeof call.id === "string" ? call.id : "",
      name: typeof call.name === "string" ? call.name : "",
      input: typeof call.input === "object" && call.input !== null ? call.input : {},
      arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.input ?? {}),
    });
  }
  return out;
}

/** Builds the ok answer to relay request `requestId`: one host result per relayed call, matched by call id. */
export function relayAnswer(requestId: string, results: RelayResult[]): Answer {
  return { id: requestId, ok: true, data: { results: results.map((r) => ({ id: r.id, output: r.output, isError: r.isError === true })) } };
}

/**
 * The host's result for call `id`: a `results` entry with that id, else the single-call
 * shorthand `data.output`/`data.isError` when `shorthand` allows it.
 */
export function relayResultFor(answer: Answer, id: string, shorthand: boolean): ToolResult | undefined {
  const data = answer.data ?? {};
  if (Array.isArray(data.results)) {
    for (const r of data.results) {
      if (typeof r === "object" && r !== null && (r as RelayResult).id === id) {
        const out = (r as RelayResult).output;
        return { output: typeof out === "string" ? out : "", isError: (r as RelayResult).isError === true };
      }
    }
  }
  if (shorthand && (RELAY_OUTPUT_KEY in data || RELAY_IS_ERROR_KEY in data)) {
    const out = data[RELAY_OUTPUT_KEY];
    return { output: typeof out === "string" ? out : "", isError: data[RELAY_IS_ERROR_KEY] === true };
  }
  return undefined;
}

/** The tool result for a relay call whose request was declined, cancelled or expired. */
export function relayDeclined(name: string, answer: Answer): ToolResult {
  return { output: `relay declined for ${name}: ${answer.reason ?? "declined"}`, isError: true };
}

/** The result for a relay call the host's answer says nothing about: an error, never a silent empty success. */
export function relayNoResult(name: string): ToolResult {
  return { output: `no result supplied for ${name}`, isError: true };
}

/**
 * A declaration-only tool: the model may call it, nothing runs here. Arguments are checked
 * against `schema` first (invalid ones are an error result and do not suspend); the first
 * execution suspends with a `tool_call` request; the re-execution with an answer returns the
 * host's result. Throws a TypeError for an invalid name or a schema that does not compile.
 */
export function relayTool(name: string, description: string, schema?: JsonObject | null): Tool {
  checkToolName(name, "relayTool");
  const inputSchema = schema ?? EMPTY_OBJECT_SCHEMA;
  // Compiled once, like defineTool: bad arguments are caught here rather than by the host.
  const validate = compileArgsValidator(name, inputSchema);
  return Object.freeze({
    name,
    description,
    inputSchema,
    source: "relay" as const,
    async execute(args: Record<string, unknown>, ctx?: Partial<ToolContext>): Promise<ToolResult> {
      const invalid = argumentsError(name, validate, args);
      if (invalid) return invalid;
      const answer = ctx?.answer;
      if (!answer) {
        return pending({
          kind: RELAY_KIND,
          prompt: `relay tool call ${name} to the caller for execution`,
          data: { calls: [{ id: "", name, input: args, arguments: JSON.stringify(args) }] },
        });
      }
      if (!answer.ok) return relayDeclined(name, answer);
      return relayResultFor(answer, ctx?.toolCallId ?? "", true) ?? relayNoResult(name);
    },
  });
}

/** Stamps the provider call id (and its raw arguments text) on every unstamped relay call. */
export function stampRelayRequest(req: Request, callId: string, rawArguments: string): Request {
  if (!isRelayRequest(req) || !Array.isArray(req.data?.calls)) return req;
  const calls = (req.data!.calls as unknown[]).map((c) => {
    if (typeof c !== "object" || c === null || (c as RelayCall).id !== "") return c;
    return { ...(c as RelayCall), id: callId, arguments: rawArguments };
  });
  return { ...req, data: { ...req.data, calls } };
}

/** Folds the calls of every later relay request into the first one, in call order. */
export function mergeRelayRequests(requests: Request[]): Request | undefined {
  const relays = requests.filter(isRelayRequest);
  if (relays.length === 0) return undefined;
  const first = relays[0]!;
  const calls: unknown[] = [];
  for (const r of relays) if (Array.isArray(r.data?.calls)) calls.push(...(r.data!.calls as unknown[]));
  return { ...first, data: { ...first.data, calls } };
}
