import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { isJsonObject, type Json, type JsonObject } from "../../events/json.js";
import { toJsonSafe } from "../../runtime/json-safe.js";
import { GuardrailRejectedError } from "../../runtime/errors.js";
import { declareAdapterOptions, runtimeOf, type AdapterOptions } from "../runtime-of.js";
import { mcpAttributes } from "./semconv.js";
import { withTraceparent } from "./trace-context.js";
import { contentText, McpToolError, resultValue, type McpToolResult } from "./tool-result.js";

/** A result an execution intercept gave instead of the server's, as an MCP tool result. */
function toolResultOf(result: Json): { content: { type: "text"; text: string }[]; structuredContent?: JsonObject } {
  const text = typeof result === "string" ? result : JSON.stringify(result);
  return isJsonObject(result) ? { content: [{ type: "text", text }], structuredContent: result } : { content: [{ type: "text", text }] };
}

/** Options of `traceMcpClient`. */
export type TraceMcpClientOptions = AdapterOptions;

const TRACE_CLIENT_OPTIONS = declareAdapterOptions<TraceMcpClientOptions>("traceMcpClient", {});

const TRACED = Symbol.for("relaytrace.mcp.traced");

/**
 * Wraps an MCP client used outside the relaytrace loop: every `callTool` becomes a `tool` scope
 * (through `runtime.executeTool`, so guardrails, intercepts and sanitizers apply; a guardrail
 * refusal comes back as an `isError` result carrying the reason), every
 * `readResource` and `getPrompt` a `function` scope; each carries the MCP semantic-convention
 * attributes (`mcp.method.name`, `mcp.session.id`, `gen_ai.tool.name`, `network.transport`) and
 * sends the W3C trace context to the server in the request's `_meta.traceparent`. Returns the
 * same client; wrapping twice changes nothing.
 */
export function traceMcpClient<C extends Client>(client: C, options: TraceMcpClientOptions = {}): C {
  TRACE_CLIENT_OPTIONS.check(options);
  const marked = client as C & { [TRACED]?: true };
  if (marked[TRACED]) return client;
  marked[TRACED] = true;
  const callTool = client.callTool.bind(client);
  const readResource = client.readResource.bind(client);
  const getPrompt = client.getPrompt.bind(client);

  client.callTool = async (params, resultSchema, requestOptions) => {
    const runtime = runtimeOf(options);
    const metadata = mcpAttributes(client, "tools/call", { "gen_ai.tool.name": params.name, "gen_ai.operation.name": "execute_tool" });
    let raw: Awaited<ReturnType<typeof callTool>> | undefined;
    // The event records a bounded JSON copy; the server gets the app's own arguments, unless a
    // request or execution intercept replaced them (then it gets theirs, as for any tool).
    const recorded = toJsonSafe(params.arguments ?? {});
    let answered: Json;
    try {
      ({ result: answered } = await runtime.executeTool(
        params.name,
        recorded,
        async (args) => {
          const forwarded = args === recorded ? params : { ...params, arguments: args as Record<string, unknown> };
          raw = await callTool(withTraceparent(forwarded), resultSchema, requestOptions);
          const result = raw as McpToolResult;
          // An isError result is a failed call for the trace; the app still gets the result itself.
          if (result.isError === true) throw new McpToolError(params.name, contentText(result.content));
          return { result: resultValue(result) };
        },
        { metadata, ...(requestOptions?.signal ? { signal: requestOptions.signal } : {}) },
      ));
    } catch (error) {
      // A refusal answers like a failed tool, so code that hands results to a model needs no new path.
      if (error instanceof GuardrailRejectedError) return { content: [{ type: "text", text: error.reason }], isError: true };
      if (!(error instanceof McpToolError) || raw === undefined) throw error;
      return raw;
    }
    // The server's own answer; an execution intercept that answered without calling the server
    // is answered with its result, in the shape a tool result has.
    return raw ?? toolResultOf(answered);
  };

  client.readResource = (params, requestOptions) => {
    const runtime = runtimeOf(options);
    const metadata = mcpAttributes(client, "resources/read", { "mcp.resource.uri": params.uri });
    return runtime.withScope(
      `resources/read ${params.uri}`,
      async (scope) => {
        const result = await readResource(withTraceparent(params), requestOptions);
        scope.setOutput(toJsonSafe(result.contents) as Json);
        return result;
      },
      { category: "function", input: { uri: params.uri }, metadata },
    );
  };

  client.getPrompt = (params, requestOptions) => {
    const runtime = runtimeOf(options);
    const metadata: JsonObject = mcpAttributes(client, "prompts/get", { "gen_ai.prompt.name": params.name });
    return runtime.withScope(
      `prompts/get ${params.name}`,
      async (scope) => {
        const result = await getPrompt(withTraceparent(params), requestOptions);
        scope.setOutput(toJsonSafe(result.messages) as Json);
        return result;
      },
      { category: "function", input: toJsonSafe({ name: params.name, arguments: params.arguments ?? {} }), metadata },
    );
  };
  return client;
}
