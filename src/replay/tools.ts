import { isJsonObject, type Json, type JsonObject } from "../events/json.js";
import type { AtofEvent, ScopeEvent } from "../events/types.js";
import { codecForEvent } from "../wire/registry.js";
import { canonicalJson } from "../events/canonical-json.js";
import { requestBodyOf } from "../wire/request-body.js";

/** What a replayed tool answers: the loop's tool result shape. */
export interface ReplayToolResult {
  output: string;
  isError: boolean;
}

/**
 * A tool that answers from a recording. It has the shape of the loop's `Tool`, so
 * `createToolkit({ tools })` takes it; it is spelled out here because the replay sits below the
 * loop (`relaytrace/testing` serves it, and the testing exporters never import the agent layer).
 */
export interface ReplayTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonObject;
  readonly source: "native";
  execute(args: Record<string, unknown>): Promise<ReplayToolResult>;
}

interface RecordedTool {
  description: string;
  inputSchema: JsonObject | undefined;
  /** recorded results by canonical arguments, in recorded order */
  results: Map<string, ReplayToolResult[]>;
}

/** What a tool end recorded as the model's result: the loop's `{output, isError}`, else the value as text. */
function resultOf(data: Json): ReplayToolResult | undefined {
  if (isJsonObject(data) && typeof data["output"] === "string") {
    const metadata = data["metadata"];
    // A suspension is not a result: the call that resumed it holds the answer.
    if (isJsonObject(metadata) && metadata["pending"] !== undefined) return undefined;
    return { output: data["output"], isError: data["isError"] === true };
  }
  return { output: typeof data === "string" ? data : JSON.stringify(data), isError: false };
}

function toolSchemas(event: ScopeEvent, into: Map<string, RecordedTool>): void {
  const body = requestBodyOf(event.data);
  const codec = body && codecForEvent({ dataSchema: event.data_schema, name: event.name, body, which: "request" });
  if (!body || !codec) return;
  try {
    for (const def of codec.decodeRequest(body).tools) {
      const tool = into.get(def.name) ?? { description: def.description ?? "", inputSchema: undefined, results: new Map() };
      tool.inputSchema ??= def.inputSchema;
      into.set(def.name, tool);
    }
  } catch {
    // a request the codec cannot read offers no schemas
  }
}

/** The recorded tool calls of `events`: per tool, its description, schema and results by arguments. */
function recordedTools(events: Iterable<AtofEvent>): Map<string, RecordedTool> {
  const tools = new Map<string, RecordedTool>();
  const starts = new Map<string, ScopeEvent>();
  for (const event of events) {
    if (event.kind !== "scope") continue;
    if (event.category === "llm" && event.scope_category === "start") toolSchemas(event, tools);
    if (event.category !== "tool") continue;
    if (event.scope_category === "start") {
      starts.set(event.uuid, event);
      continue;
    }
    const start = starts.get(event.uuid);
    starts.delete(event.uuid);
    const result = start ? resultOf(event.data) : undefined;
    if (!start || !result) continue;
    const metadata = isJsonObject(start.metadata) ? start.metadata : {};
    const tool = tools.get(start.name) ?? { description: "", inputSchema: undefined, results: new Map() };
    if (tool.description === "" && typeof metadata["tool_description"] === "string") tool.description = metadata["tool_description"];
    const key = canonicalJson(start.data ?? {});
    tool.results.set(key, [...(tool.results.get(key) ?? []), result]);
    tools.set(start.name, tool);
  }
  return tools;
}

function replayTool(name: string, recorded: RecordedTool): ReplayTool {
  const served = new Map<string, number>();
  return {
    name,
    description: recorded.description,
    inputSchema: recorded.inputSchema ?? { type: "object" },
    source: "native",
    async execute(args) {
      const key = canonicalJson(args);
      const results = recorded.results.get(key);
      if (results === undefined || results.length === 0) {
        const message = `replay: tool ${name} was not recorded with arguments ${key} (recorded: ${recorded.results.size} argument sets)`;
        // An error result the model reads, built here: the replay calls nothing that could throw.
        return { output: message, isError: true };
      }
      // Recorded order for repeated calls with the same arguments; the last result answers any further repeat.
      const n = served.get(key) ?? 0;
      served.set(key, n + 1);
      const result = results[Math.min(n, results.length - 1)]!;
      return { ...result };
    },
  };
}

/**
 * Tools that answer with the recorded result for the recorded name and arguments, for
 * `createToolkit({ tools })`: a replayed run calls nothing real. A call the recording does not
 * have gets an error result that names the tool and says it was not recorded.
 */
export function replayTools(events: Iterable<AtofEvent>): ReplayTool[] {
  return [...recordedTools(events)].map(([name, recorded]) => replayTool(name, recorded));
}
