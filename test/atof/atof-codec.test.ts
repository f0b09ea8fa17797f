import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { serializeEvent } from "../../src/events/atof-serialize.js";
import { parseAtofLine } from "../../src/events/atof-parse.js";
import { AtofParseError, UnsupportedAtofVersion, type AtofWarning } from "../../src/events/atof-errors.js";
import { parseTimestamp } from "../../src/events/timestamp.js";
import type { AtofEvent, MarkEvent, ScopeEvent } from "../../src/events/types.js";
import { createRuntime } from "../../src/runtime/runtime.js";

const fixtures = new URL("../fixtures/nat-atof/", import.meta.url);
const fixtureFiles = readdirSync(fileURLToPath(fixtures)).filter((f) => f.endsWith(".jsonl"));

const toolEnd: ScopeEvent = {
  kind: "scope",
  scope_category: "end",
  atof_version: "0.1",
  uuid: "019ca945-0b9c-7128-a24b-e40ad23f0824",
  parent_uuid: "019ca945-0a01-7651-8317-1ff4a6a3a450",
  timestamp: "2026-03-01T12:00:00.977311Z",
  name: "get_weather",
  attributes: [],
  category: "tool",
  category_profile: { tool_call_id: "call_9f2", tool_result_annotation: { cache: "hit", rank: 1 } },
  data: { temp_c: 4 },
  data_schema: null,
  metadata: { "otel.status_code": "OK" },
};

// Exactly the line from reference/atof.md §10.
const toolEndLine =
  '{"kind":"scope","scope_category":"end","atof_version":"0.1","uuid":"019ca945-0b9c-7128-a24b-e40ad23f0824","parent_uuid":"019ca945-0a01-7651-8317-1ff4a6a3a450","timestamp":"2026-03-01T12:00:00.977311Z","name":"get_weather","attributes":[],"category":"tool","category_profile":{"tool_call_id":"call_9f2","tool_result_annotation":{"cache":"hit","rank":1}},"data":{"temp_c":4},"data_schema":null,"metadata":{"otel.status_code":"OK"}}';

const markLine =
  '{"kind":"mark","atof_version":"0.1","uuid":"019ca945-0dd1-70ed-a079-d3bde8e25d94","parent_uuid":"019ca945-0b9c-7128-a24b-e40ad23f0824","timestamp":"2026-03-01T12:00:00.977312Z","name":"cache.lookup","category":"custom","category_profile":{"subtype":"acme.cache"},"data":{"hit":true},"data_schema":{"name":"acme.cache_lookup","version":"1"},"metadata":{"nemo_relay.log.severity":"info"}}';

function line(overrides: Record<string, unknown>, drop: string[] = []): string {
  const obj: Record<string, unknown> = { ...JSON.parse(toolEndLine), ...overrides };
  for (const key of drop) delete obj[key];
  return JSON.stringify(obj);
}

function reasonOf(text: string, lineNo: number): AtofParseError {
  try {
    parseAtofLine(text, lineNo);
  } catch (err) {
    expect(err).toBeInstanceOf(AtofParseError);
    return err as AtofParseError;
  }
  throw new Error(`line was accepted: ${text}`);
}

describe("serializeEvent", () => {
  it("writes the reference line byte for byte, keys in the pinned order", () => {
    expect(serializeEvent(toolEnd)).toBe(toolEndLine);
    expect(serializeEvent(parseAtofLine(markLine))).toBe(markLine);
  });

  it("writes explicit nulls for absent optional keys and no trailing newline", () => {
    const mark = { kind: "mark", atof_version: "0.1", uuid: "m1", parent_uuid: undefined, timestamp: 5, name: "x" } as unknown as MarkEvent;
    const text = serializeEvent(mark);
    expect(text.endsWith("\n")).toBe(false);
    expect(text).toBe(
      '{"kind":"mark","atof_version":"0.1","uuid":"m1","parent_uuid":null,"timestamp":5,"name":"x","category":null,"category_profile":null,"data":null,"data_schema":null,"metadata":null}',
    );
  });

  it("escapes strings and keeps unknown keys after the known ones", () => {
    const event = { ...toolEnd, name: 'we"ird\nname', zeta: 1, alpha: { nested: [1, 2] } } as ScopeEvent;
    const text = serializeEvent(event);
    expect(Object.keys(JSON.parse(text)).slice(-2)).toEqual(["zeta", "alpha"]);
    expect(JSON.parse(text).name).toBe('we"ird\nname');
  });
});

describe("serializeEvent of runtime events", () => {
  it("writes what JSON.stringify writes, whatever the ids, names and payloads hold and however they repeat", async () => {
    const ids = ['id-"1"', "id-\\2", "id-\u00e93", "id-4", "id-5", "id-6", "id-7", "id-8"];
    let next = 0;
    const runtime = createRuntime({ idGenerator: () => ids[next++ % ids.length]! });
    const events: AtofEvent[] = [];
    runtime.subscribe("capture", (event) => void events.push(event));
    for (const name of ["plain", 'quo"te', "tab\tline\n", "caf\u00e9 \u2028", "plain"]) {
      await runtime.executeTool(name, { name }, async (args) => ({ result: args }), { toolCallId: `call_${name}` });
      await runtime.executeTool(name, null, async () => ({ result: null }));
    }
    await runtime.withScope("outer", () => runtime.executeTool("inner", [1], async () => ({ result: "ok" }), { metadata: { k: "v" } }));
    await runtime.flush();
    expect(events.length).toBe(24);
    for (const event of events) {
      const line = serializeEvent(event);
      expect(line).toBe(JSON.stringify(event));
      expect(serializeEvent(parseAtofLine(line))).toBe(line); // the reader's copy takes the general path
    }
  });
});

describe("parseAtofLine", () => {
  it.each(fixtureFiles)("accepts and round-trips every line of %s", (file) => {
    const lines = readFileSync(fileURLToPath(new URL(file, fixtures)), "utf8")
      .split("\n")
      .filter((l) => l.trim() !== "");
    expect(lines.length).toBeGreaterThan(0);
    lines.forEach((l, i) => {
      const event = parseAtofLine(l, i + 1);
      expect(JSON.parse(serializeEvent(event))).toEqual(JSON.parse(l));
    });
  });

  it("accepts NAT-style ids that are not UUIDs", () => {
    expect(parseAtofLine(line({ uuid: "agent-003", parent_uuid: "root-001" })).uuid).toBe("agent-003");
  });

  it("accepts both timestamp forms and keeps the original form", () => {
    const forms: (string | number)[] = [
      "2026-03-01T12:00:00Z",
      "2026-03-01T12:00:00.1+00:00",
      "2026-03-01T13:00:00.123456789+01:00",
      "2026-03-01T12:00:00.977311Z",
      1772366400977311,
      0,
    ];
    for (const ts of forms) {
      const event = parseAtofLine(line({ timestamp: ts }));
      expect(event.timestamp).toBe(ts);
      expect(JSON.parse(serializeEvent(event)).timestamp).toBe(ts);
    }
    // Offsets and 9 fraction digits normalize to the same µs as the Z form (truncated, not rounded).
    expect(parseTimestamp(parseAtofLine(line({ timestamp: "2026-03-01T13:00:00.123456789+01:00" })).timestamp)).toBe(
      parseTimestamp("2026-03-01T12:00:00.123456Z"),
    );
  });

  it("preserves unknown top-level keys, profile keys, flags and categories", () => {
    const text = line({
      category: "acme_vendor_thing",
      attributes: ["acme.speculative", "parallel"],
      category_profile: { tool_call_id: null, acme_score: 0.5 },
      x_trace_hint: { deep: [1, "a"] },
    });
    // A "__proto__" key on the wire must stay data, never become the event's prototype.
    const withProto = text.slice(0, -1) + ',"__proto__":{"polluted":true}}';
    const event = parseAtofLine(withProto);
    expect(JSON.parse(serializeEvent(event))).toEqual(JSON.parse(withProto));
    expect(Object.getPrototypeOf(event)).toBe(Object.prototype);
    expect((event as unknown as Record<string, unknown>).x_trace_hint).toEqual({ deep: [1, "a"] });
  });

  it("accepts a foreign custom event without subtype with a warning", () => {
    const warnings: AtofWarning[] = [];
    const event = parseAtofLine(line({ category: "custom", category_profile: null }), 7, warnings);
    expect(event.category).toBe("custom");
    expect(warnings).toEqual([expect.objectContaining({ lineNo: 7, code: "atof.custom_without_subtype" })]);
  });

  const rejections: [string, string, RegExp][] = [
    ["not JSON", '{"kind": "scope",', /not valid JSON/],
    ["not an object", "[1,2]", /not a JSON object.*array/],
    ["missing kind", line({}, ["kind"]), /kind is missing/],
    ["invalid kind", line({ kind: "tool" }), /kind must be "scope" or "mark".*"tool"/],
    ["missing scope_category", line({}, ["scope_category"]), /scope_category is missing/],
    ["invalid scope_category", line({ scope_category: "middle" }), /scope_category must be/],
    ["missing attributes", line({}, ["attributes"]), /attributes is missing/],
    ["attributes not strings", line({ attributes: [1] }), /attributes must be an array of strings/],
    ["missing category", line({}, ["category"]), /category is missing/],
    ["empty uuid", line({ uuid: "" }), /uuid must be a non-empty string/],
    ["numeric uuid", line({ uuid: 12 }), /uuid must be a non-empty string/],
    ["missing parent_uuid", line({}, ["parent_uuid"]), /parent_uuid is missing/],
    ["bad timestamp string", line({ timestamp: "yesterday" }), /bad timestamp/],
    ["negative timestamp", line({ timestamp: -1 }), /bad timestamp/],
    ["fractional timestamp", line({ timestamp: 1.5 }), /bad timestamp/],
    ["missing timestamp", line({}, ["timestamp"]), /timestamp is missing/],
    ["missing atof_version", line({}, ["atof_version"]), /atof_version is missing/],
    ["profile not an object", line({ category_profile: [] }), /category_profile must be an object/],
    ["bad data_schema", line({ data_schema: "v1" }), /data_schema must be/],
  ];

  it.each(rejections)("rejects %s with its line number and reason", (_label, text, reason) => {
    const err = reasonOf(text, 42);
    expect(err.lineNo).toBe(42);
    expect(err.reason).toMatch(reason);
    expect(err.message).toContain("line 42");
    expect(err).not.toBeInstanceOf(UnsupportedAtofVersion);
  });

  it("rejects major version 1 with UnsupportedAtofVersion naming version and line", () => {
    const err = reasonOf(line({ atof_version: "1.0" }), 3);
    expect(err).toBeInstanceOf(UnsupportedAtofVersion);
    expect((err as UnsupportedAtofVersion).version).toBe("1.0");
    expect(err.message).toContain("1.0");
    expect(err.lineNo).toBe(3);
  });

  it("accepts other 0.x minors", () => {
    expect(parseAtofLine(line({ atof_version: "0.7" })).atof_version).toBe("0.7");
  });
});
