import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AtofExporter } from "../../exporters/atof/index.js";
import { readAtofFile } from "../../src/events/atof-reader.js";
import { parseTimestamp } from "../../src/events/timestamp.js";
import type { AtofEvent, ScopeEvent } from "../../src/events/types.js";
import { createRuntime } from "../../src/runtime/runtime.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "relaytrace-atof-runtime-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("AtofExporter with the real runtime", () => {
  it("writes withScope and executeTool events to the file in emission order", async () => {
    const runtime = createRuntime();
    const exporter = new AtofExporter({ type: "file", outputDirectory: dir, mode: "overwrite" });
    exporter.register(runtime);
    const delivered: AtofEvent[] = [];
    runtime.subscribe("capture", (event) => {
      delivered.push(event);
    });

    const result = await runtime.withScope(
      "weather-agent",
      () =>
        runtime.executeTool("get_weather", { city: "Oslo" }, async () => ({ result: { temp_c: 4 }, annotation: { cache: "hit" } }), {
          toolCallId: "call_9f2",
        }),
      { category: "agent", input: { prompt: "Weather in Oslo?" } },
    );
    expect(result.result).toEqual({ temp_c: 4 });
    await runtime.shutdown();

    // The file holds exactly what subscribers saw, line for line, and reads back strictly (pairing checked).
    const text = await readFile(exporter.filePath!, "utf8");
    expect(
      text
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l)),
    ).toEqual(JSON.parse(JSON.stringify(delivered)));
    const { events, warnings } = await readAtofFile(exporter.filePath!);
    expect(warnings).toEqual([]);

    const shape = events.map((e) => `${e.kind === "scope" ? e.scope_category : "mark"}:${e.category}:${e.name}`);
    expect(shape).toEqual(["start:agent:weather-agent", "start:tool:get_weather", "end:tool:get_weather", "end:agent:weather-agent"]);
    const [agentStart, toolStart, toolEnd, agentEnd] = events as ScopeEvent[];
    expect(toolStart!.parent_uuid).toBe(agentStart!.uuid);
    expect(toolEnd!.uuid).toBe(toolStart!.uuid);
    expect(agentEnd!.uuid).toBe(agentStart!.uuid);
    expect(agentStart!.data).toEqual({ prompt: "Weather in Oslo?" });
    expect(toolStart!.data).toEqual({ city: "Oslo" });
    expect(toolEnd!.category_profile).toEqual({ tool_call_id: "call_9f2", tool_result_annotation: { cache: "hit" } });
    expect(toolEnd!.metadata).toMatchObject({ "otel.status_code": "OK" });
    const times = events.map((e) => parseTimestamp(e.timestamp));
    expect([...times].sort((a, b) => a - b)).toEqual(times);

    expect(runtime.diagnostics().filter((d) => d.code.startsWith("atof."))).toEqual([]);
  });

  it("surfaces the exporter's write failures in runtime.diagnostics() without failing the app", async () => {
    const runtime = createRuntime();
    const blocker = join(dir, "file-in-the-way");
    await writeFile(blocker, "x");
    new AtofExporter({ type: "file", outputDirectory: join(blocker, "atof") }).register(runtime);
    await expect(runtime.withScope("work", () => 42)).resolves.toBe(42);
    await runtime.shutdown();
    const codes = runtime.diagnostics().map((d) => d.code);
    expect(codes).toContain("atof.write_failed");
    expect(runtime.diagnostics().find((d) => d.code === "atof.events_dropped")?.count).toBe(2);
  });
});
