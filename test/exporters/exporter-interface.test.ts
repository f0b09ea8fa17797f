import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AtifExporter, AtofExporter, OtelExporter } from "../../exporters/index.js";
import { SpanCapture } from "../../exporters/testing/index.js";
import type { Exporter } from "../../src/index.js";
import { createRuntime } from "../../src/runtime/runtime.js";
import { deadPort } from "../support/fault-collector.js";
import { runSampleAgent } from "../support/sample-agent.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "relaytrace-exporter-interface-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("every exporter is an Exporter the runtime drives", () => {
  it("runtime.diagnostics() lists the counted failures of each registered exporter next to its own", async () => {
    const port = await deadPort();
    const blocker = join(dir, "not-a-directory");
    await writeFile(blocker, "a file where the ATIF directory should be");
    const exporters: Exporter[] = [
      new AtofExporter({ type: "stream", url: `http://127.0.0.1:${port}/events`, maxRetries: 0, timeoutMillis: 2000 }),
      new OtelExporter({ projection: "full", endpoint: `http://127.0.0.1:${port}/v1/traces`, timeoutMillis: 2000 }),
      new AtifExporter({ agent: { name: "calc", version: "1" }, outputDirectory: join(blocker, "out") }),
    ];
    const runtime = createRuntime();
    for (const exporter of exporters) exporter.register(runtime);
    await runtime.withScope(
      "calc-agent",
      async () => {
        await runtime.executeLlm("openai.chat_completions", { content: { model: "m", messages: [] } }, async () => ({ choices: [] }));
        await runSampleAgent(runtime);
      },
      { category: "agent" },
    );
    await runtime.shutdown();
    const codes = runtime.diagnostics().map((d) => d.code);
    expect(codes).toEqual(expect.arrayContaining(["atof.stream_failed", "atof.events_dropped", "otel.export_failed", "atif.write_failed"]));
    for (const exporter of exporters) {
      for (const d of exporter.diagnostics()) expect(runtime.diagnostics()).toContainEqual(d);
    }
  });

  it("SpanCapture is an Exporter too: runtime.forceFlush() reaches it", async () => {
    const capture: Exporter = new SpanCapture({ projection: "full" });
    const runtime = createRuntime();
    capture.register(runtime);
    await runSampleAgent(runtime);
    await runtime.forceFlush();
    expect(capture.diagnostics()).toEqual([]);
    expect((await (capture as SpanCapture).spans()).map((s) => s.name).sort()).toEqual(["add", "sample-agent"]);
    await runtime.shutdown();
  });
});

describe("one option check, one message format", () => {
  it("the runtime, the exporters and the client word an unknown option the same way", async () => {
    const { createClient } = await import("../../src/agent/index.js");
    const format = /^\w+: unknown option "[\w.]+"( for a \w+ sink)? \(did you mean "[\w.]+"\?\)$/;
    const messages = [
      () => createRuntime({ namespce: "x" } as never),
      () => new OtelExporter({ projection: "full", endPoint: "x" } as never),
      () => new AtifExporter({ agent: { name: "a", version: "1" }, outputDir: dir } as never),
      () => createClient({ baseUrl: "http://127.0.0.1:9", style: "openai", model: "m", max_turns: 2 } as never),
    ].map((make) => {
      try {
        make();
      } catch (error) {
        expect(error).toBeInstanceOf(TypeError);
        return (error as Error).message;
      }
      return "did not throw";
    });
    for (const message of messages) expect(message).toMatch(format);
  });
});
