import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createHash } from "node:crypto";
import { JsonTraceSerializer } from "@opentelemetry/otlp-transformer";
import { beforeAll, describe, expect, it } from "vitest";
import { parseAtof } from "../../src/events/atof-reader.js";
import type { AtofEvent, ScopeEvent } from "../../src/events/types.js";
import type { Json } from "../../src/events/json.js";
import { SpanCapture } from "../../exporters/testing/span-capture.js";
import { runDemo } from "../../src/cli/demo-scenario.js";
import { AtofSpanCollector } from "../../src/cli/viewer/from-atof.js";
import { spansFromOtlp } from "../../src/cli/viewer/from-otlp.js";
import { layoutSpans, totalsOf } from "../../src/cli/viewer/layout.js";
import { loadViewDoc } from "../../src/cli/viewer/load.js";
import { requestMessages, responseMessages, usageOf } from "../../src/cli/viewer/conversation.js";
import {
  axisTicks,
  barPlacement,
  formatDuration,
  parentIndexes,
  rowMatches,
  searchText,
  visibleRows,
} from "../../src/cli/viewer/client-logic.js";
import { renderViewerPage, VIEWER_CSP, VIEWER_SCRIPT } from "../../src/cli/viewer/page.js";
import type { ViewDoc } from "../../src/cli/viewer/model.js";

const NAT = fileURLToPath(new URL("../fixtures/nat-atof/", import.meta.url));

let demoEvents: AtofEvent[];
let demoFiles: string[];

beforeAll(async () => {
  const out = await mkdtemp(join(tmpdir(), "relaytrace-viewer-"));
  const demo = await runDemo({ outDir: out, projection: "full" });
  demoEvents = parseAtof(await readFile(demo.atofPath, "utf8")).events;
  demoFiles = [demo.atofPath, ...demo.atifPaths];
});

function viewOf(events: readonly AtofEvent[]) {
  const collector = new AtofSpanCollector();
  for (const e of events) collector.add(e, "test.jsonl");
  return layoutSpans(collector.spans());
}

let clock = 1_800_000_000_000_000;
function scope(kind: "start" | "end", uuid: string, parent: string | null, name: string, extra: Partial<ScopeEvent> = {}): ScopeEvent {
  clock += 1000;
  return {
    kind: "scope",
    scope_category: kind,
    atof_version: "0.1",
    uuid,
    parent_uuid: parent,
    timestamp: clock,
    name,
    attributes: [],
    category: "function",
    category_profile: null,
    data: null,
    data_schema: null,
    metadata: null,
    ...extra,
  };
}

describe("viewer spans from ATOF", () => {
  it("has one row per scope, with the span and trace ids the OTel exporter gives the same events", async () => {
    const { spans, traces } = viewOf(demoEvents);
    const starts = demoEvents.filter((e) => e.kind === "scope" && e.scope_category === "start");
    expect(spans).toHaveLength(starts.length);
    const capture = new SpanCapture({ projection: "full" });
    for (const e of demoEvents) capture.onEvent(e);
    const otel = (await capture.spans()).filter((s) => !s.name.startsWith("mark:"));
    const ids = (list: { id: string; traceId: string; parentId: string | null }[]) =>
      list.map((s) => `${s.traceId}/${s.id}/${s.parentId}`).sort();
    expect(ids(spans)).toEqual(
      ids(
        otel
          .map((s) => ({ id: s.spanContext().spanId, traceId: s.spanContext().traceId, parentId: s.parentSpanContext?.spanId ?? null }))
          .map((s) => ({ ...s, parentId: spans.some((v) => v.id === s.parentId) ? s.parentId : null })),
      ),
    );
    expect(traces).toHaveLength(1);
    expect(spans[0]!.name).toBe("weather-agent");
    expect(spans[0]!.last).toBe(spans.length - 1);
    expect(spans.slice(1).every((s) => s.depth === 1)).toBe(true);
  });

  it("keeps kinds, status, tool call ids, annotations, usage, model and the conversation", () => {
    const { spans } = viewOf(demoEvents);
    const weather = spans.find((s) => s.name === "get_weather")!;
    expect(weather).toMatchObject({
      kind: "tool",
      status: "OK",
      toolCallId: "call_weather_1",
      annotation: { cache: "miss", source: "demo-weather-service" },
      input: { city: "Oslo" },
    });
    const llm = spans.find((s) => s.kind === "llm")!;
    expect(llm.model).toBe("demo-model");
    expect(llm.usage).toEqual({ promptTokens: 182, completionTokens: 41, totalTokens: 223 });
    expect(llm.messages!.map((m) => m.role)).toEqual(["system", "user", "assistant"]);
    expect(llm.messages![2]!.toolCalls!.map((c) => c.name)).toEqual(["get_weather", "notify_customer"]);
    const second = spans.filter((s) => s.kind === "llm")[1]!;
    expect(second.messages!.some((m) => m.role === "tool" && m.toolCallId === "call_weather_1")).toBe(true);
  });

  it("draws marks on their parent's row; marks after the parent ended are pending", () => {
    const { spans } = viewOf(demoEvents);
    const weather = spans.find((s) => s.name === "get_weather")!;
    expect(weather.marks.map((m) => [m.name, m.pending])).toEqual([
      ["cache.lookup", true],
      ["audit.recorded", true],
    ]);
  });

  it("tells a suspension and its resumption as one story in the same trace", () => {
    const { spans } = viewOf(demoEvents);
    const [suspended, resumed] = spans.filter((s) => s.name === "notify_customer");
    expect(suspended!.suspended).toBe(true);
    expect(suspended!.resumedBy).toBe(resumed!.id);
    expect(resumed!.resumes).toBe(suspended!.id);
    expect(resumed!.traceId).toBe(suspended!.traceId);
    expect(resumed!.start).toBeGreaterThanOrEqual(suspended!.end);
  });

  it("links a resumption by its tool call id when no retry link was recorded", () => {
    const events: AtofEvent[] = [
      scope("start", "a", null, "agent", { category: "agent" }),
      scope("start", "t1", "a", "ask_human", { category: "tool", category_profile: { tool_call_id: "c1" } }),
      scope("end", "t1", "a", "ask_human", {
        category: "tool",
        category_profile: { tool_call_id: "c1", tool_result_annotation: { pending: { id: "p1" } } },
      }),
      scope("start", "t2", "a", "ask_human", { category: "tool", category_profile: { tool_call_id: "c1" } }),
      scope("end", "t2", "a", "ask_human", { category: "tool", metadata: { "otel.status_code": "OK" } }),
      scope("end", "a", null, "agent", { category: "agent" }),
    ];
    const { spans } = viewOf(events);
    const [first, second] = spans.filter((s) => s.name === "ask_human");
    expect(first!.resumedBy).toBe(second!.id);
    expect(second!.resumes).toBe(first!.id);
  });

  it("shows spans without an end as ERROR, ends without a start, and orphan marks as rows", () => {
    const events: AtofEvent[] = [
      scope("start", "root", null, "root"),
      scope("start", "open", "root", "never-ends"),
      scope("end", "lonely", null, "end-only", {
        metadata: { "otel.status_code": "ERROR", "otel.status_description": "boom", "error.type": "Timeout" },
      }),
      {
        kind: "mark",
        atof_version: "0.1",
        uuid: "m1",
        parent_uuid: "elsewhere",
        timestamp: (clock += 1000),
        name: "note",
        category: null,
        category_profile: null,
        data: { x: 1 },
        data_schema: null,
        metadata: null,
      },
    ];
    const collector = new AtofSpanCollector();
    for (const e of events) collector.add(e, "x.jsonl");
    const { spans } = layoutSpans(collector.spans());
    expect(spans.find((s) => s.name === "never-ends")).toMatchObject({
      status: "ERROR",
      unended: true,
      error: { message: "no end event in the input" },
    });
    expect(spans.find((s) => s.name === "end-only")).toMatchObject({ status: "ERROR", error: { message: "boom", errorType: "Timeout" } });
    expect(spans.find((s) => s.name === "mark:note")).toMatchObject({ kind: "mark", output: { x: 1 } });
    expect(collector.notes().join("\n")).toMatch(/2 spans without an end event[\s\S]*1 end event without a start/);
  });

  it("lays out a chain 50,000 deep without recursion", () => {
    const events: AtofEvent[] = [];
    for (let i = 0; i < 50_000; i++) events.push(scope("start", `s${i}`, i === 0 ? null : `s${i - 1}`, `n${i}`));
    for (let i = 49_999; i >= 0; i--) events.push(scope("end", `s${i}`, i === 0 ? null : `s${i - 1}`, `n${i}`));
    const { spans, traces } = viewOf(events);
    expect(traces).toHaveLength(1);
    expect(spans[49_999]!.depth).toBe(49_999);
    expect(spans[0]!.last).toBe(49_999);
  });

  it("reads another producer's files (non-uuid ids, whole-second timestamps) with their ATIF", async () => {
    const files = ["exmp01", "exmp02", "exmp03"].flatMap((n) => [join(NAT, `${n}_atof.jsonl`), join(NAT, `${n}_atif.json`)]);
    const doc = await loadViewDoc(files);
    expect(doc.totals.trajectories).toBe(3);
    expect(doc.spans.every((s) => /^[0-9a-f]{16}$/.test(s.id) && /^[0-9a-f]{32}$/.test(s.traceId))).toBe(true);
    const tool = doc.spans.find((s) => s.kind === "tool" && s.toolCallId === "call_abc")!;
    expect(tool.name).toBe("calculator__add");
  });
});

describe("viewer spans from OTLP/JSON", () => {
  // Inputs and outputs come back from flattened attributes, where a JSON-looking string and an
  // object are one form: the conversation and the tools' arguments are compared, not every output.
  it("gives the same rows as the ATOF they were projected from", async () => {
    const capture = new SpanCapture({ projection: "full" });
    for (const e of demoEvents) capture.onEvent(e);
    await capture.shutdown();
    const otlp = JSON.parse(Buffer.from(JsonTraceSerializer.serializeRequest(await capture.spans())!).toString("utf8")) as unknown;
    const fromOtlp = layoutSpans(spansFromOtlp(otlp, "t.otlp.json")).spans;
    const fromAtof = viewOf(demoEvents).spans;
    const shape = (s: (typeof fromAtof)[number]) => ({
      id: s.id,
      parentId: s.parentId,
      name: s.name,
      kind: s.kind,
      status: s.status,
      toolCallId: s.toolCallId,
      model: s.model,
      usage: s.usage,
      messages: s.messages,
      annotation: s.annotation,
      input: s.kind === "tool" ? s.input : undefined,
      marks: s.marks.map((m) => [m.name, m.pending]),
      resumes: s.resumes,
      depth: s.depth,
    });
    expect(fromOtlp.map(shape)).toEqual(fromAtof.map(shape));
  });
});

describe("conversations in each dialect", () => {
  it("reads Anthropic blocks, Responses items and Gemini parts", () => {
    expect(
      requestMessages({
        system: "be brief",
        messages: [
          { role: "user", content: "hi" },
          { role: "assistant", content: [{ type: "tool_use", id: "tu1", name: "f", input: { a: 1 } }] },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "tu1", content: "42" }] },
        ],
      }),
    ).toEqual([
      { role: "system", text: "be brief" },
      { role: "user", text: "hi" },
      { role: "assistant", text: "", toolCalls: [{ id: "tu1", name: "f", arguments: '{"a":1}' }] },
      { role: "tool", text: "42", toolCallId: "tu1" },
    ]);
    expect(
      requestMessages({
        instructions: "sys",
        input: [
          { role: "user", content: "q" },
          { type: "function_call", call_id: "c", name: "g", arguments: "{}" },
          { type: "function_call_output", call_id: "c", output: "ok" },
        ],
      }).map((m) => m.role),
    ).toEqual(["system", "user", "assistant", "tool"]);
    expect(
      responseMessages({
        candidates: [{ content: { role: "model", parts: [{ text: "yes" }, { functionCall: { name: "h", args: { q: 1 } } }] } }],
      }),
    ).toEqual([{ role: "assistant", text: "yes", toolCalls: [{ id: "call_0", name: "h", arguments: '{"q":1}' }] }]);
    expect(usageOf({ type: "message", content: [], stop_reason: "end_turn", usage: { input_tokens: 5, output_tokens: 7 } })).toEqual({
      promptTokens: 5,
      completionTokens: 7,
      totalTokens: 12,
    });
    expect(usageOf({ candidates: [], usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 2, totalTokenCount: 3 } })).toEqual({
      promptTokens: 1,
      completionTokens: 2,
      totalTokens: 3,
    });
  });

  it("names what a media part holds in each dialect: image, audio, file, or media when its shape does not say", () => {
    const texts = (body: Json) => requestMessages(body).map((m) => m.text);
    expect(
      texts({
        model: "m",
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "look" },
              { type: "image_url", image_url: { url: "data:image/png;base64,AA" } },
              { type: "input_audio", input_audio: { data: "AA", format: "wav" } },
              { type: "file", file: { file_id: "f1" } },
            ],
          },
        ],
      }),
    ).toEqual(["look\n[image]\n[audio]\n[file]"]);
    expect(
      texts({
        model: "m",
        input: [
          {
            role: "user",
            content: [
              { type: "input_image", image_url: "https://example.invalid/a.png" },
              { type: "input_file", file_id: "f2" },
            ],
          },
        ],
      }),
    ).toEqual(["[image]\n[file]"]);
    expect(
      texts({
        model: "m",
        max_tokens: 9,
        messages: [
          {
            role: "user",
            content: [
              { type: "image", source: { type: "base64", media_type: "image/png", data: "AA" } },
              { type: "document", source: { type: "text", media_type: "text/plain", data: "d" } },
            ],
          },
        ],
      }),
    ).toEqual(["[image]\n[file]"]);
    expect(
      texts({
        contents: [
          {
            role: "user",
            parts: [
              { inlineData: { mimeType: "image/jpeg", data: "AA" } },
              { fileData: { mimeType: "video/mp4", fileUri: "gs://b/v.mp4" } },
              { inlineData: { mimeType: "application/pdf", data: "AA" } },
            ],
          },
        ],
      }),
    ).toEqual(["[image]\n[video]\n[file]"]);
    expect(texts({ model: "m", messages: [{ role: "user", content: [{ type: "sticker", id: "s" }] }] })).toEqual(["[media]"]);
  });
});

describe("the page's logic", () => {
  const rows = [
    { name: "root", kind: "agent", status: "OK", depth: 0, last: 3 },
    { name: "llm call", kind: "llm", status: "OK", depth: 1, last: 1 },
    { name: "search", kind: "tool", status: "ERROR", depth: 1, last: 3, input: { q: "needle" } },
    { name: "fetch", kind: "tool", status: "OK", depth: 2, last: 3 },
    { name: "other", kind: "agent", status: "UNSET", depth: 0, last: 4 },
  ];
  const traces = [
    { first: 0, count: 4 },
    { first: 4, count: 1 },
  ];
  const parents = parentIndexes(rows);
  const match = (text: string, status = "", kind = "", everywhere = false) => {
    const filter = { text, status, kind, everywhere };
    return Uint8Array.from(rows.map((r) => (rowMatches(r, searchText(r, everywhere), filter) ? 1 : 0)));
  };

  it("lists trace headers and rows, hiding what a collapsed row holds", () => {
    expect(Array.from(parents)).toEqual([-1, 0, 0, 2, -1]);
    expect(visibleRows(rows, traces, new Set(), null, parents)).toEqual([-1, 0, 1, 2, 3, -2, 4]);
    expect(visibleRows(rows, traces, new Set([2]), null, parents)).toEqual([-1, 0, 1, 2, -2, 4]);
    expect(visibleRows(rows, traces, new Set([0]), null, parents)).toEqual([-1, 0, -2, 4]);
  });

  it("filters by name, status, kind and data, keeping each match's ancestors and dropping empty traces", () => {
    expect(visibleRows(rows, traces, new Set(), match("fetch"), parents)).toEqual([-1, 0, 2, 3]);
    expect(visibleRows(rows, traces, new Set(), match("", "ERROR"), parents)).toEqual([-1, 0, 2]);
    expect(visibleRows(rows, traces, new Set(), match("", "", "agent"), parents)).toEqual([-1, 0, -2, 4]);
    expect(visibleRows(rows, traces, new Set(), match("needle"), parents)).toEqual([]);
    expect(visibleRows(rows, traces, new Set(), match("needle", "", "", true), parents)).toEqual([-1, 0, 2]);
  });

  it("prints durations and places bars and ticks", () => {
    expect([850, 12_345, 4_210_000, 185_000_000].map(formatDuration)).toEqual(["850µs", "12.3ms", "4.21s", "3m 05s"]);
    expect(barPlacement(1_000, 3_000, 0, 10_000)).toEqual({ left: 10, width: 20 });
    expect(barPlacement(5_000, 5_000, 0, 10_000).width).toBeGreaterThan(0);
    expect(axisTicks(28_757, 6)).toEqual([0, 5000, 10000, 15000, 20000, 25000]);
  });
});

describe("the page", () => {
  function hostileDoc(): ViewDoc {
    const name = "</script><script>window.pwned=1</script><!--";
    const { spans, traces } = layoutSpans([
      {
        id: "00000000000000aa",
        traceId: "0".repeat(31) + "1",
        parentId: null,
        name,
        kind: "tool",
        status: "OK",
        start: 0,
        end: 10,
        flags: [],
        input: { html: "<img src=x onerror=alert(1)>" },
        output: null,
        marks: [],
        metadata: null,
        source: "x",
      },
    ]);
    return { title: "<b>title</b>", sources: ["x"], spans, traces, trajectories: [], totals: totalsOf(spans, traces, []), notes: [] };
  }

  it("embeds hostile text as data: no markup from the input reaches the HTML", () => {
    const html = renderViewerPage(hostileDoc());
    expect(html).not.toContain("<script>window.pwned");
    expect(html).not.toContain("<img src=x");
    expect(html).toContain("<title>&#60;b&#62;title&#60;/b&#62; — relaytrace</title>");
    const data = /<script type="application\/json" id="relaytrace-data">([\s\S]*?)<\/script>/.exec(html)![1]!;
    expect((JSON.parse(data) as ViewDoc).spans[0]!.name).toBe("</script><script>window.pwned=1</script><!--");
    expect(VIEWER_SCRIPT).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function/);
  });

  it("forbids every network request and allows exactly its own script and style", () => {
    const html = renderViewerPage(hostileDoc());
    expect(VIEWER_CSP).toMatch(/^default-src 'none'; /);
    expect(VIEWER_CSP).not.toMatch(/unsafe|https?:|connect-src (?!'none')/);
    const script = /<script>([\s\S]*?)<\/script>/.exec(html)![1]!;
    expect(VIEWER_CSP).toContain(`'sha256-${createHash("sha256").update(script).digest("base64")}'`);
    expect(html).toContain(`content="${VIEWER_CSP}"`);
  });

  it("counts the header totals over spans and trajectories", async () => {
    const doc = await loadViewDoc(demoFiles);
    expect(doc.totals).toMatchObject({ spans: 6, errors: 0, traces: 1, tokens: 508, trajectories: 1, steps: 3 });
    expect(doc.totals.wallTime).toBeGreaterThan(0);
  });
});
