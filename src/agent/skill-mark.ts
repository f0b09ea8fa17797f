import type { Json } from "../events/json.js";
import type { AgentRuntime } from "./runtime-port.js";

/** The `skill.load` mark of a `skill` tool call: which skill the model asked for, under the tool. */
export function markSkillLoad(runtime: AgentRuntime, toolUuid: string, toolName: string, args: Json): void {
  const requested = typeof args === "object" && args !== null && !Array.isArray(args) ? args["name"] : undefined;
  runtime.mark("skill.load", {
    parent: { uuid: toolUuid },
    data: { skill_name: typeof requested === "string" ? requested : null },
    metadata: { skill_load_source: "skill_tool", tool_name: toolName },
  });
}
