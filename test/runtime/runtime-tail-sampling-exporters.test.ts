// Tail sampling reaches every exporter alike: a kept trace is in the ATOF file, the ATIF directory
// and the OTLP traces; a dropped one in none of them; the drops arrive as an OTLP counter.
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AtifExporter } from "../../exporters/atif/index.js";
import { AtofExporter } from "../../exporters/atof/index.js";
import { OtelExporter } from "../../exporters/otel/index.js";
import type { AtofEvent } from "../../src/events/types.js";
import { createRuntime, type Runtime } from "../../src/runtime/runtime.js";
import { metricsOf, spansOf, startOtlpReceiver, type OtlpReceiver } from "../support/otlp.js";
import { DROPPED_ROOT_RANDOM, KEPT_ROOT_RANDOM, rootIdEndingWith, scriptedIds } from "../support/sampling.js";

let dir: string;
let receiver: OtlpReceiver;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "relaytrace-sampling-"));
  receiver = await startOtlpReceiver();
});
afterEach(async () => {
  await receiver.close();
  await rm(dir, { recursive: true, force: true });
});

/** An agent run: one (unpriced) LLM call and one tool call (`fail` makes the tool throw). */
function agentRun(rt: Runtime, fail = false): Promise<string> {
  return rt.withScope(
    "billing-agent",
    async (scope) => {
      await rt.executeLlm(
        "openai.chat_completions",
        { headers: {}, content: { model: "m", messages: [{ role: "user", content: "hi" }] } },
        () => ({
          model: "m",
          choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: "ok" } }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
      );
      await rt
        .executeTool("charge", { amount: 5 }, () => (fail ? Promise.reject(new Error("card declined")) : { result: "charged" }))
        .catch(() => undefined);
      return scope.uuid;
    },
    { category: "agent" },
  );
}

const hex = (uuid: string) => uuid.replace(/-/g, "");

describe("sampling decides for ATOF, ATIF and OpenTelemetry alike", () => {
  it("a kept trace reaches every exporter whole, a dropped one none, and the drops arrive as the relaytrace.sampling.dropped_traces counter", async () => {
    const kept = rootIdEndingWith(KEPT_ROOT_RANDOM);
    const dropped = rootIdEndingWith(DROPPED_ROOT_RANDOM);
    const failed = rootIdEndingWith("00000000000002");
    const ids = scriptedIds(kept);
    const rt = createRuntime({ idGenerator: ids.idGenerator, sampling: { ratio: 0.5, keep: { errors: true } } });
    const atofFile = join(dir, "events.jsonl");
    new AtofExporter({ type: "file", path: atofFile }).register(rt);
    new AtifExporter({ agent: { name: "billing", version: "1" }, outputDirectory: join(dir, "atif") }).register(rt);
    new OtelExporter({ projection: "openinference", endpoint: `${receiver.url}/v1/traces`, metrics: true }).register(rt);

    expect(await agentRun(rt)).toBe(kept);
    ids.next(dropped);
    expect(await agentRun(rt)).toBe(dropped);
    ids.next(failed);
    expect(await agentRun(rt, true)).toBe(failed); // below the ratio, kept by keep.errors
    await rt.shutdown();

    const lines = (await readFile(atofFile, "utf8")).trim().split("\n");
    const events = lines.map((l) => JSON.parse(l) as AtofEvent);
    const roots = events.filter((e) => e.kind === "scope" && e.category === "agent" && e.scope_category === "start").map((e) => e.uuid);
    expect(roots).toEqual([kept, failed]);
    // Whole: every event of the kept traces (2 agent + 2 llm + 2 tool scopes, start and end each), then the metric.
    expect(events.filter((e) => e.kind === "scope")).toHaveLength(12);
    expect(events.filter((e) => e.kind === "mark").map((e) => e.name)).toEqual(["relaytrace.sampling.dropped_traces"]);

    expect((await readdir(join(dir, "atif"))).sort()).toEqual([`relaytrace-atif-${kept}.json`, `relaytrace-atif-${failed}.json`].sort());

    const spans = receiver.received.filter((r) => r.signal === "traces").flatMap((r) => spansOf(r.body));
    expect(new Set(spans.map((s) => s["traceId"]))).toEqual(new Set([hex(kept), hex(failed)]));
    expect(spans).toHaveLength(6);

    const metric = metricsOf(receiver.received).find((m) => m["name"] === "relaytrace.sampling.dropped_traces") as
      { sum: { dataPoints: { asInt?: string | number }[] } } | undefined;
    expect(metric).toBeDefined();
    expect(metric!.sum.dataPoints.reduce((n, p) => n + Number(p.asInt), 0)).toBe(1);
    expect(rt.diagnostics().find((d) => d.code === "sampling.dropped_traces")?.count).toBe(1);
  });
});
