import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AtifExporter, validateAtif } from "../../exporters/atif/index.js";
import { AtofExporter } from "../../exporters/atof/index.js";
import { SpanCapture } from "../../exporters/testing/index.js";
import { parseAtof } from "../../src/events/atof-reader.js";
import type { AtofEvent } from "../../src/events/types.js";
import type { Json } from "../../src/events/json.js";
import { CIRCULAR_MARKER, DEPTH_MARKER, UNREADABLE_MARKER } from "../../src/runtime/json-safe.js";
import { createRuntime, type Runtime } from "../../src/runtime/runtime.js";

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

/** A runtime with every exporter attached to real sinks: an ATOF file, ATIF in memory, OTel full spans in memory. */
async function harness() {
  const dir = await mkdtemp(join(tmpdir(), "relaytrace-hostile-"));
  dirs.push(dir);
  const runtime = createRuntime();
  const atof = new AtofExporter({ type: "file", path: join(dir, "events.jsonl") });
  const atif = new AtifExporter({ agent: { name: "hostile", version: "1" } });
  const spans = new SpanCapture({ projection: "full" });
  const events: AtofEvent[] = [];
  atof.register(runtime);
  atif.register(runtime);
  spans.register(runtime);
  runtime.subscribe("capture", (e) => {
    events.push(e);
  });
  return { dir, runtime, atof, atif, spans, events };
}

/** Runs one agent with one tool returning `result`/`annotation`; reports the longest event-loop stall seen. */
async function runTool(runtime: Runtime, result: unknown, annotation?: unknown): Promise<{ returned: unknown; maxStallMs: number }> {
  // A 1 ms ticker: the longest gap between ticks is the longest time the event loop was blocked.
  let last = performance.now();
  let maxStallMs = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    maxStallMs = Math.max(maxStallMs, now - last);
    last = now;
  }, 1);
  await new Promise((r) => setTimeout(r, 5));
  last = performance.now();
  const returned = await runtime.withScope(
    "agent",
    () =>
      runtime.executeTool("hostile_tool", { q: 1 }, () => ({ result, annotation }) as never, {
        toolCallId: "call-1",
      }),
    { category: "agent" },
  );
  await runtime.flush();
  await new Promise((r) => setTimeout(r, 5));
  clearInterval(ticker);
  return { returned, maxStallMs };
}

function toolEnd(events: AtofEvent[]): AtofEvent {
  return events.find((e) => e.kind === "scope" && e.scope_category === "end" && e.name === "hostile_tool")!;
}

async function everyOutputIsValid(h: Awaited<ReturnType<typeof harness>>): Promise<string> {
  await h.runtime.shutdown();
  const text = await readFile(h.atof.filePath!, "utf8");
  // every line parses back through our own reader
  const parsed = parseAtof(text);
  expect(parsed.events.length).toBe(h.events.length);
  for (const doc of h.atif.toJSON()) expect(validateAtif(doc).errors).toEqual([]);
  expect((await h.spans.spans()).length).toBeGreaterThan(0);
  return text;
}

describe("hostile payloads: documented outcome, never a crash", () => {
  it("cycles become [Circular], BigInt its decimal string, functions and symbols are dropped — counted in payload_not_json", async () => {
    const h = await harness();
    const cyclic: Record<string, unknown> = { name: "loop" };
    cyclic.self = cyclic;
    const annotation = {
      cyclic,
      big: 12345678901234567890n,
      fn: () => 1,
      sym: Symbol("s"),
      [Symbol("k")]: 1,
      list: [() => 1, Symbol("x"), undefined, NaN],
    };
    const { returned } = await runTool(h.runtime, { ok: true, big: 7n }, annotation);
    // the app gets exactly what the tool returned
    expect((returned as { annotation: unknown }).annotation).toBe(annotation);
    const end = toolEnd(h.events);
    expect(end.data).toEqual({ ok: true, big: "7" });
    expect(end.category_profile?.tool_result_annotation).toEqual({
      cyclic: { name: "loop", self: CIRCULAR_MARKER },
      big: "12345678901234567890",
      list: [null, null, null, null],
    });
    expect(h.runtime.diagnostics().find((d) => d.code === "payload_not_json")?.count).toBeGreaterThan(0);
    await everyOutputIsValid(h);
  });

  it("a 10,000-level nested annotation is cut at depth 100 with a marker, quickly", async () => {
    const h = await harness();
    let deep: Json = "bottom";
    for (let i = 0; i < 10_000; i++) deep = { d: deep };
    const { maxStallMs } = await runTool(h.runtime, "ok", deep);
    console.info(`10,000-level annotation: longest event-loop stall ${maxStallMs.toFixed(1)} ms`);
    const text = JSON.stringify(toolEnd(h.events).category_profile?.tool_result_annotation);
    expect(text).toContain(DEPTH_MARKER);
    expect(text).not.toContain("bottom");
    expect(h.runtime.diagnostics().find((d) => d.code === "payload_not_json")?.message).toMatch(/nesting too deep/);
    await everyOutputIsValid(h);
  });

  it("a 10 MB result is delivered whole to every exporter", async () => {
    const h = await harness();
    const big = "x".repeat(10 * 1024 * 1024);
    const { maxStallMs } = await runTool(h.runtime, { text: big });
    console.info(`10 MB result: longest event-loop stall ${maxStallMs.toFixed(1)} ms`);
    expect((toolEnd(h.events).data as { text: string }).text.length).toBe(big.length);
    const text = await everyOutputIsValid(h);
    expect(text.length).toBeGreaterThan(big.length);
    expect(h.runtime.diagnostics()).toEqual([]);
  });

  it("lone surrogates are written as escaped JSON and read back unchanged", async () => {
    const h = await harness();
    const odd = "a\uD800b\uDFFFc";
    await runTool(h.runtime, { odd }, { [odd]: odd });
    const text = await everyOutputIsValid(h);
    expect(text).toContain("\\ud800");
    expect(Buffer.from(text, "utf8").toString("utf8")).toBe(text); // the file is well-formed UTF-8
    const back = parseAtof(text).events.find((e) => e.kind === "scope" && e.scope_category === "end" && e.name === "hostile_tool")!;
    expect(back.data).toEqual({ odd });
    expect(back.category_profile?.tool_result_annotation).toEqual({ [odd]: odd });
  });

  it("getters that throw and revoked proxies in a payload do not reach the app; the payload is replaced and counted", async () => {
    const h = await harness();
    const trap = Object.defineProperty({ fine: 1 }, "boom", {
      enumerable: true,
      get() {
        throw new Error("getter exploded");
      },
    });
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    const { returned } = await runTool(h.runtime, { trap }, { proxy });
    expect((returned as { result: { trap: unknown } }).result.trap).toBe(trap);
    h.runtime.mark("after", { data: { trap } });
    await everyOutputIsValid(h);
    expect(toolEnd(h.events).data).toEqual({ trap: { fine: 1, boom: UNREADABLE_MARKER } });
    expect(toolEnd(h.events).category_profile?.tool_result_annotation).toEqual({ proxy: UNREADABLE_MARKER });
    expect(h.runtime.diagnostics().some((d) => d.code === "payload_not_json")).toBe(true);
  });
});
