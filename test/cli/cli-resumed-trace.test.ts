// A run continued in another process joins the first run's trace whatever the two clocks say:
// the continued run's first start records the trace it continues, so `relaytrace convert` of both
// files (merged by time) gives one trace even when the second process's clock is a second behind.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AtofExporter } from "../../exporters/atof/index.js";
import { main } from "../../src/cli/main.js";
import { createRuntime } from "../../src/runtime/runtime.js";
import type { PropagationContext } from "../../src/runtime/types.js";
import { captureIo } from "../support/cli-io.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "relaytrace-resumed-trace-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface OtlpJson {
  resourceSpans: { scopeSpans: { spans: { name: string; traceId: string; parentSpanId?: string; spanId: string }[] }[] }[];
}

/** One process: a runtime writing its own ATOF file, on its own clock. */
function processWith(file: string, clockOffsetUs: number) {
  const runtime = createRuntime({
    clock: { nowUs: () => Math.floor((performance.timeOrigin + performance.now()) * 1000) + clockOffsetUs },
  });
  new AtofExporter({ type: "file", path: join(dir, file) }).register(runtime);
  return runtime;
}

describe("a run resumed in another process", () => {
  it("stays in the first run's trace when the second clock is a second behind", async () => {
    const first = processWith("first.jsonl", 0);
    let context: PropagationContext | undefined;
    await first.withScope(
      "first-run",
      () => first.executeTool("ask-user", {}, () => ((context = first.capturePropagationContext()), { result: "halted" })),
      { category: "agent" },
    );
    await first.shutdown();

    const second = processWith("second.jsonl", -1_000_000); // its clock is 1 s behind: its events sort first
    await second.withPropagation(context!, () =>
      second.withScope("resumed-run", () => second.executeTool("finish", {}, () => ({ result: "done" })), { category: "agent" }),
    );
    await second.shutdown();

    const out = join(dir, "both.otlp.json");
    const io = captureIo();
    expect(await main(["convert", join(dir, "first.jsonl"), join(dir, "second.jsonl"), "--to", "otlp-json", "-o", out], io)).toBe(0);
    const spans = (JSON.parse(await readFile(out, "utf8")) as OtlpJson).resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
    expect(spans.map((s) => s.name).sort()).toEqual(["ask-user", "finish", "first-run", "resumed-run"]);
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
    // The resumed run hangs under the span the context was captured in (the tool of the first run).
    const askUser = spans.find((s) => s.name === "ask-user")!;
    expect(spans.find((s) => s.name === "resumed-run")!.parentSpanId).toBe(askUser.spanId);
  });
});
