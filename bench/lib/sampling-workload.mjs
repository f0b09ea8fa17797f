// The workload of the tail-sampling bench (bench/sampling.mjs and its child): agent-shaped traces,
// a root scope with three tool calls (8 events); one trace in 20 has a failing tool.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

export const SINKS = ["noop subscriber", "ATOF file"];

const ARGS = { city: "Oslo", units: "metric" };
const RESULT = { result: { temp_c: 4, conditions: "clear" } };
const ok = async () => RESULT;
const failing = async () => {
  throw new Error("upstream timeout");
};

async function trace(rt, i) {
  try {
    await rt.withScope(
      "weather-agent",
      async () => {
        await rt.executeTool("lookup_weather", ARGS, ok, { toolCallId: "call_1" });
        await rt.executeTool("lookup_forecast", ARGS, i % 20 === 7 ? failing : ok, { toolCallId: "call_2" });
        await rt.executeTool("lookup_alerts", ARGS, ok, { toolCallId: "call_3" });
      },
      { category: "agent" },
    );
  } catch (error) {
    if (error?.message !== "upstream timeout") throw error; // only the failing trace's error is expected
  }
}

/**
 * A runtime of build `api` with `sampling` (undefined: unset) delivering to `sink`. `run(n)` runs
 * n traces and their delivery (it ends with `flush()`) and records the CPU ns per trace in `cpu`.
 */
export async function samplingSetup(api, sink, sampling) {
  const rt = api.createRuntime(sampling === undefined ? {} : { sampling });
  let dir;
  if (sink === "ATOF file") {
    dir = await mkdtemp(path.join(os.tmpdir(), "relaytrace-bench-sampling-"));
    new api.AtofExporter({ type: "file", path: path.join(dir, "events.jsonl"), mode: "overwrite" }).register(rt);
  } else {
    rt.subscribe("noop", () => {});
  }
  let i = 0;
  const cpu = [];
  return {
    runtime: rt,
    cpu,
    run: async (n) => {
      const before = process.cpuUsage();
      for (let k = 0; k < n; k++) await trace(rt, i++);
      await rt.flush();
      const used = process.cpuUsage(before);
      cpu.push(((used.user + used.system) * 1000) / n);
    },
    close: async () => {
      await rt.shutdown();
      if (dir) await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Events a runtime lost (other than the traces sampling dropped on purpose). */
export function lostEvents(rt) {
  return rt
    .diagnostics()
    .filter((d) => d.code !== "sampling.dropped_traces" && /dropped|not_exported|failed|overflow/.test(d.code))
    .reduce((n, d) => n + d.count, 0);
}
