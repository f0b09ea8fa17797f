import type { Attributes } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { OtelExporter, type AttributeMapping, type OtelExporterOptions, type ProjectionName } from "../../exporters/otel/index.js";
import { AttributeControls } from "../../exporters/otel/attribute-controls.js";
import { DiagnosticCounter } from "../../src/wire/diagnostics.js";
import { SpanCapture } from "../../exporters/testing/index.js";
import type { AtofEvent } from "../../src/events/types.js";
import { createRuntime } from "../../src/runtime/runtime.js";
import { A, end, HIDDEN_ROOT, M1, mark, start, T, ts, workedExample } from "../support/otel-events.js";

const P = "019ca945-2000-7000-8000-00000000000a";
const C = "019ca945-2001-7000-8000-00000000000b";

type Controls = Pick<OtelExporterOptions, "attributeMappings" | "promoteMetadataPrefixes" | "markProjection">;

async function run(projection: ProjectionName, events: AtofEvent[], controls: Controls) {
  const capture = new SpanCapture({ projection, ...controls });
  for (const e of events) capture.onEvent(e);
  const spans = await capture.spans();
  await capture.shutdown();
  const byName = new Map(spans.map((s) => [s.name, s] as [string, ReadableSpan]));
  return { spans, byName, diagnostics: capture.exporter.diagnostics() };
}

function scopePair(startMeta: Record<string, unknown>, endMeta: Record<string, unknown>, category = "tool"): AtofEvent[] {
  return [
    start({ uuid: P, name: "step", category, at: ts("0.000001"), data: { city: "Oslo" }, metadata: startMeta as never }),
    end({
      uuid: P,
      name: "step",
      category,
      at: ts("0.000002"),
      data: { temp_c: 4 },
      metadata: { "otel.status_code": "OK", ...endMeta } as never,
    }),
  ];
}

describe("attributeMappings (§1.8)", () => {
  it("copies a projected attribute to its alias on full scope spans", async () => {
    const { byName } = await run("full", scopePair({}, {}), {
      attributeMappings: [
        { key: "nemo_relay.start.data.city", alias: "app.city" },
        { key: "nemo_relay.end.output.temp_c", alias: "app.temp" },
        { key: "does.not.exist", alias: "app.missing" },
      ],
    });
    const attrs = byName.get("step")!.attributes;
    expect(attrs["app.city"]).toBe("Oslo");
    expect(attrs["app.temp"]).toBe(4);
    expect("app.missing" in attrs).toBe(false);
  });

  it("takes the last value among start and end attributes", async () => {
    // openinference writes `metadata` at start and rewrites it at the end.
    const { byName } = await run("openinference", scopePair({ a: 1 }, { b: 2 }), {
      attributeMappings: [{ key: "metadata", alias: "app.meta" }],
    });
    const attrs = byName.get("step")!.attributes;
    expect(attrs["app.meta"]).toBe(attrs["metadata"]);
    expect(JSON.parse(String(attrs["app.meta"]))).toMatchObject({ b: 2, "otel.status_code": "OK" });
    expect(attrs["openinference.span.kind"]).toBe("TOOL");
  });

  it("never overwrites an alias that already exists", async () => {
    const { byName } = await run("openinference", scopePair({}, {}), {
      attributeMappings: [{ key: "nemo_relay.uuid", alias: "openinference.span.kind" }],
    });
    expect(byName.get("step")!.attributes["openinference.span.kind"]).toBe("TOOL");
  });

  it("applies to mark span events and to mark spans", async () => {
    const mappings: AttributeMapping[] = [{ key: "nemo_relay.mark.data.hit", alias: "app.hit" }];
    const events: AtofEvent[] = [
      start({ uuid: P, name: "step", at: ts("0.000001") }),
      mark({ uuid: C, parent: P, name: "inside", at: ts("0.000002"), data: { hit: true } }),
      end({ uuid: P, name: "step", at: ts("0.000003") }),
    ];
    const { byName } = await run("full", events, { attributeMappings: mappings });
    const event = byName.get("step")!.events.find((e) => e.name === "inside")!;
    expect(event.attributes?.["app.hit"]).toBe(true);
    expect("app.hit" in byName.get("step")!.attributes).toBe(false);

    // The worked example's M1 becomes a mark span (its parent T has already ended).
    const example = await run("openinference", workedExample(), { attributeMappings: mappings });
    expect(example.byName.get("mark:cache.lookup")!.attributes["app.hit"]).toBe(true);
  });

  it("is ignored by gen_ai", async () => {
    const { byName } = await run("gen_ai", scopePair({}, {}), {
      attributeMappings: [{ key: "gen_ai.tool.name", alias: "app.tool" }],
    });
    const span = byName.get("execute_tool step")!;
    expect(span.attributes["gen_ai.tool.name"]).toBe("step");
    expect("app.tool" in span.attributes).toBe(false);
  });
});

describe("promoteMetadataPrefixes (§1.8)", () => {
  it("promotes matching scalar and homogeneous-array metadata to top-level attributes", async () => {
    const { byName, diagnostics } = await run(
      "full",
      scopePair({ "app.team": "search", "app.retries": 2, "app.flag": true, "app.tags": ["a", "b"], "app.nums": [1, 2.5], other: "x" }, {}),
      { promoteMetadataPrefixes: ["app."] },
    );
    const attrs = byName.get("step")!.attributes;
    expect(attrs["app.team"]).toBe("search");
    expect(attrs["app.retries"]).toBe(2);
    expect(attrs["app.flag"]).toBe(true);
    expect(attrs["app.tags"]).toEqual(["a", "b"]);
    expect(attrs["app.nums"]).toEqual([1, 2.5]);
    expect("other" in attrs).toBe(false);
    // The projection's own flattened copy stays.
    expect(attrs["nemo_relay.start.metadata.app.team"]).toBe("search");
    expect(diagnostics).toEqual([]);
  });

  it("lets the end event's value win over the one promoted at start", async () => {
    const { byName } = await run("openinference", scopePair({ "app.phase": "begin", "app.kept": 1 }, { "app.phase": "done" }), {
      promoteMetadataPrefixes: ["app."],
    });
    const attrs = byName.get("step")!.attributes;
    expect(attrs["app.phase"]).toBe("done");
    expect(attrs["app.kept"]).toBe(1);
  });

  it("never promotes reserved namespaces or the bare key metadata", async () => {
    const reserved = [
      "error.type",
      "exception.type",
      "gen_ai.system",
      "input.value",
      "llm.model_name",
      "nemo_relay.x",
      "openinference.span.kind",
      "output.value",
      "server.address",
      "service.name",
      "session.id",
      "tool.name",
      "tool_call.id",
      "user.id",
    ];
    const meta: Record<string, unknown> = { metadata: "bare" };
    for (const key of reserved) meta[key] = `evil-${key}`;
    const prefixes = [...new Set(reserved.map((k) => k.slice(0, k.indexOf(".") + 1)))].concat(["metadata"]);
    const { byName, diagnostics } = await run("full", scopePair(meta, {}), { promoteMetadataPrefixes: prefixes });
    const attrs = byName.get("step")!.attributes;
    for (const key of [...reserved, "metadata"]) expect(attrs[key], key).toBeUndefined();
    expect(diagnostics).toEqual([]);
  });

  it("treats the configured namespace as reserved", async () => {
    const capture = new SpanCapture({ projection: "full", namespace: "acme", promoteMetadataPrefixes: ["acme.", "nemo_relay."] });
    for (const e of scopePair({ "acme.secret": "s", "nemo_relay.ok": "yes" }, {})) capture.onEvent(e);
    const attrs = (await capture.spans()).find((s) => s.name === "step")!.attributes;
    await capture.shutdown();
    expect(attrs["acme.secret"]).toBeUndefined();
    expect(attrs["nemo_relay.ok"]).toBe("yes"); // reserved only when it is the configured namespace
  });

  it("never overwrites keys the projection set, but the end value replaces a start promotion", () => {
    // Every key today's projections write lies in a reserved namespace, so this guard is checked
    // on the controls directly with an attribute set as a projection would leave it.
    const counter = new DiagnosticCounter();
    const controls = AttributeControls.create({ promoteMetadataPrefixes: ["app."] }, "full", "nemo_relay", counter)!;
    const attrs: Attributes = { "app.owned": "projection" };
    controls.finishScope(attrs, { "app.owned": "start", "app.phase": "begin" }, { "app.owned": "end", "app.phase": "done" });
    expect(attrs).toEqual({ "app.owned": "projection", "app.phase": "done" });
    expect(AttributeControls.create({}, "full", "nemo_relay", counter)).toBeUndefined();
    expect(AttributeControls.create({ attributeMappings: [{ key: "a", alias: "b" }] }, "gen_ai", "nemo_relay", counter)).toBeUndefined();
  });

  it("runs promotion before the aliases, so an alias never replaces a promoted key", async () => {
    const { byName } = await run("full", scopePair({ "app.city": "Bergen" }, {}), {
      promoteMetadataPrefixes: ["app."],
      attributeMappings: [{ key: "nemo_relay.start.data.city", alias: "app.city" }],
    });
    expect(byName.get("step")!.attributes["app.city"]).toBe("Bergen");
  });

  it("counts a rejected value per key and promotes nothing for it", async () => {
    const { byName, diagnostics } = await run(
      "full",
      scopePair(
        { "app.obj": { a: 1 }, "app.mixed": [1, "x"], "app.null": null, "app.nested": [[1]], "app.ok": "fine" },
        { "app.obj": { b: 2 } },
      ),
      { promoteMetadataPrefixes: ["app."] },
    );
    const attrs = byName.get("step")!.attributes;
    for (const key of ["app.obj", "app.mixed", "app.null", "app.nested"]) expect(attrs[key], key).toBeUndefined();
    expect(attrs["app.ok"]).toBe("fine");
    const counts = Object.fromEntries(diagnostics.map((d) => [d.code, d.count]));
    expect(counts).toEqual({
      "otel.metadata_promotion_value_unsupported.app.obj": 2,
      "otel.metadata_promotion_value_unsupported.app.mixed": 1,
      "otel.metadata_promotion_value_unsupported.app.null": 1,
      "otel.metadata_promotion_value_unsupported.app.nested": 1,
    });
  });

  it("also applies to gen_ai spans", async () => {
    const { byName } = await run("gen_ai", scopePair({ "app.team": "search", "gen_ai.request.model": "evil" }, {}), {
      promoteMetadataPrefixes: ["app.", "gen_ai."],
    });
    const attrs = byName.get("execute_tool step")!.attributes;
    expect(attrs["app.team"]).toBe("search");
    expect(attrs["gen_ai.tool.name"]).toBe("step");
    expect(attrs["gen_ai.request.model"]).toBeUndefined(); // reserved even when a prefix covers it
  });

  it("promotes start metadata on spans ended by shutdown", async () => {
    const capture = new SpanCapture({ projection: "full", promoteMetadataPrefixes: ["app."] });
    capture.onEvent(start({ uuid: A, parent: HIDDEN_ROOT, name: "open", at: ts("0.000001"), metadata: { "app.team": "x" } }));
    await capture.shutdown();
    const spans = await capture.spans();
    expect(spans.find((s) => s.name === "open")!.attributes["app.team"]).toBe("x");
  });

  it("leaves spans unchanged when the options are absent", async () => {
    const plain = await run("full", workedExample(), {});
    const empty = await run("full", workedExample(), { attributeMappings: [], promoteMetadataPrefixes: [] });
    expect(empty.spans.map((s) => s.attributes)).toEqual(plain.spans.map((s) => s.attributes));
    expect(plain.byName.get("get_weather")!.attributes["nemo_relay.uuid"]).toBe(T);
    expect(plain.byName.get("mark:cache.lookup")!.attributes["nemo_relay.mark.uuid"]).toBe(M1);
  });
});

describe("option validation", () => {
  const bad: Array<[string, Controls]> = [
    ["attributeMappings", { attributeMappings: "x" as never }],
    ["attributeMappings", { attributeMappings: [{ key: "a" }] as never }],
    ["attributeMappings", { attributeMappings: [{ key: 1, alias: "b" }] as never }],
    ["attributeMappings", { attributeMappings: [null] as never }],
    ["promoteMetadataPrefixes", { promoteMetadataPrefixes: "app." as never }],
    ["promoteMetadataPrefixes", { promoteMetadataPrefixes: ["app.", 3] as never }],
  ];
  it.each(bad)("rejects a malformed %s at construction", (option, controls) => {
    expect(() => new OtelExporter({ projection: "full", endpoint: "http://127.0.0.1:1/v1/traces", ...controls })).toThrow(
      new RegExp(`^OtelExporter option ${option}`),
    );
    expect(() => new SpanCapture({ projection: "gen_ai", ...controls })).toThrow(TypeError);
  });
});

describe("with a real runtime", () => {
  it("promotes scope metadata and aliases mark attributes end to end", async () => {
    const rt = createRuntime();
    const full = new SpanCapture({
      projection: "full",
      promoteMetadataPrefixes: ["app."],
      attributeMappings: [{ key: "nemo_relay.mark.data.hit", alias: "app.cache_hit" }],
    });
    full.register(rt);
    await rt.withScope(
      "agent",
      () => {
        rt.mark("cache.lookup", { data: { hit: true } });
      },
      { category: "agent", metadata: { "app.tenant": "acme", "session.id": "no" } },
    );
    await rt.shutdown();
    const agent = (await full.spans()).find((s) => s.name === "agent")!;
    expect(agent.attributes["app.tenant"]).toBe("acme");
    expect(agent.attributes["session.id"]).toBeUndefined();
    expect(agent.events.find((e) => e.name === "cache.lookup")!.attributes?.["app.cache_hit"]).toBe(true);
    expect(full.exporter.diagnostics()).toEqual([]);
  });
});
