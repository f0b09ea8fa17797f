import { isJsonObject } from "../../src/events/json.js";

/** One violation: `path` is a JSON Pointer (RFC 6901) into the document, `""` for the root. */
export interface AtifViolation {
  path: string;
  message: string;
}

const AGENT_ONLY = ["model_name", "reasoning_effort", "reasoning_content", "tool_calls", "metrics"] as const;
const ISO_8601 = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:[Zz]|[+-]\d{2}(?::?\d{2})?)?$/;

/** True when `value` is an ISO 8601 date-time that names a real instant. */
export function isIsoTimestamp(value: unknown): boolean {
  if (typeof value !== "string" || !ISO_8601.test(value)) return false;
  return !Number.isNaN(Date.parse(value.replace(",", ".").replace(" ", "T")));
}

function pointer(base: string, key: string | number): string {
  return `${base}/${String(key).replace(/~/g, "~0").replace(/\//g, "~1")}`;
}

/**
 * Checks the ATIF rules a JSON Schema cannot express (step numbering, timestamps, agent-only
 * fields, call/result links, subagent ids); tolerant of malformed shapes (the schema reports
 * those). Walks nested subagents with an explicit stack, in document order.
 */
export function checkTrajectoryRules(doc: unknown, path = ""): AtifViolation[] {
  const out: AtifViolation[] = [];
  const stack: { subagents: unknown[]; path: string; next: number; seen: Set<string> }[] = [];
  const enter = (node: unknown, at: string): void => {
    if (!isJsonObject(node)) return;
    const steps = node["steps"];
    if (Array.isArray(steps)) {
      if (steps.length === 0) out.push({ path: pointer(at, "steps"), message: "a trajectory needs at least one step" });
      steps.forEach((step, index) => checkStep(step, index, () => pointer(pointer(at, "steps"), index), out));
    }
    const subagents = node["subagent_trajectories"];
    if (Array.isArray(subagents)) stack.push({ subagents, path: at, next: 0, seen: new Set() });
  };
  enter(doc, path);
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    if (frame.next >= frame.subagents.length) {
      stack.pop();
      continue;
    }
    const index = frame.next++;
    const sub = frame.subagents[index];
    const subPath = pointer(pointer(frame.path, "subagent_trajectories"), index);
    if (!isJsonObject(sub)) continue;
    const id = sub["trajectory_id"];
    if (typeof id !== "string" || id === "") {
      out.push({ path: subPath, message: "an embedded subagent trajectory needs a trajectory_id" });
    } else if (frame.seen.has(id)) {
      out.push({ path: pointer(subPath, "trajectory_id"), message: `duplicate subagent trajectory_id "${id}"` });
    } else {
      frame.seen.add(id);
    }
    enter(sub, subPath);
  }
  return out;
}

/** `stepPath` builds the step's pointer only when there is a violation to report (nearly never). */
function checkStep(step: unknown, index: number, stepPath: () => string, out: AtifViolation[]): void {
  if (!isJsonObject(step)) return;
  if (typeof step["step_id"] === "number" && step["step_id"] !== index + 1) {
    out.push({
      path: pointer(stepPath(), "step_id"),
      message: `step_id must be ${index + 1} (steps are numbered 1..N), got ${step["step_id"]}`,
    });
  }
  if ("timestamp" in step && !isIsoTimestamp(step["timestamp"])) {
    out.push({ path: pointer(stepPath(), "timestamp"), message: "timestamp must be an ISO 8601 date-time" });
  }
  const source = step["source"];
  if (source !== "agent") {
    for (const key of AGENT_ONLY) {
      if (key in step)
        out.push({
          path: pointer(stepPath(), key),
          message: `"${key}" is only allowed on agent steps (source is ${JSON.stringify(source)})`,
        });
    }
  } else if (step["llm_call_count"] === 0) {
    for (const key of ["metrics", "reasoning_content"]) {
      if (key in step) out.push({ path: pointer(stepPath(), key), message: `"${key}" is not allowed when llm_call_count is 0` });
    }
  }
  const callIds = new Set<string>();
  if (Array.isArray(step["tool_calls"])) {
    for (const call of step["tool_calls"]) {
      if (isJsonObject(call) && typeof call["tool_call_id"] === "string") callIds.add(call["tool_call_id"]);
    }
  }
  const observation = step["observation"];
  const results = isJsonObject(observation) ? observation["results"] : undefined;
  if (!Array.isArray(results)) return;
  results.forEach((result, i) => {
    if (!isJsonObject(result)) return;
    const id = result["source_call_id"];
    if (typeof id === "string" && !callIds.has(id)) {
      const resultPath = pointer(pointer(pointer(stepPath(), "observation"), "results"), i);
      out.push({ path: pointer(resultPath, "source_call_id"), message: `source_call_id "${id}" matches no tool_call_id of the same step` });
    }
  });
}
