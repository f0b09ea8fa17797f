import { describe, expect, it } from "vitest";
import type { AtofEvent } from "../../src/events/types.js";
import { luhnValid, redactPII } from "../../src/redact/index.js";
import { createRuntime } from "../../src/runtime/runtime.js";

const EMAIL = "alice.smith@example.com";
const CARD = "4111 1111 1111 1111"; // Luhn-valid test card
const PHONE = "+1 415-555-0132";
const KEY = "sk-proj-AbCdEf0123456789XyZ_abcdef";

function capture(runtime: ReturnType<typeof createRuntime>): AtofEvent[] {
  const events: AtofEvent[] = [];
  runtime.subscribe("capture", (e) => {
    events.push(e);
  });
  return events;
}

async function runWithPii(mode: "mask" | "hash" | "drop") {
  const runtime = createRuntime();
  const events = capture(runtime);
  redactPII({ mode }).register(runtime);
  const returned = await runtime.withScope(
    "run",
    async () => {
      runtime.mark("note", { data: { text: `mail ${EMAIL} now` }, metadata: { [EMAIL]: "owner" } });
      return runtime.executeTool(
        "lookup",
        { email: EMAIL, card: CARD },
        () => ({ result: { phone: PHONE, key: KEY }, annotation: { contact: EMAIL } }),
        { metadata: { caller: EMAIL } },
      );
    },
    { input: { prompt: `call ${PHONE} or write ${EMAIL}` } },
  );
  await runtime.flush();
  return { events, returned, runtime };
}

describe("redactPII", () => {
  it("mask removes every PII kind from data, metadata, keys and the tool annotation", async () => {
    const { events, returned, runtime } = await runWithPii("mask");
    const wire = JSON.stringify(events);
    for (const secret of [EMAIL, CARD, PHONE, KEY]) expect(wire).not.toContain(secret);
    expect(wire).toContain("[REDACTED:email]");
    expect(wire).toContain("[REDACTED:card]");
    expect(wire).toContain("[REDACTED:phone]");
    expect(wire).toContain("[REDACTED:api_key]");
    const toolEnd = events.find((e) => e.kind === "scope" && e.scope_category === "end" && e.name === "lookup")!;
    expect(toolEnd.category_profile?.tool_result_annotation).toEqual({ contact: "[REDACTED:email]" });
    const mark = events.find((e) => e.name === "note")!;
    expect(mark.data).toEqual({ text: "mail [REDACTED:email] now" });
    expect(mark.metadata).toEqual({ "[REDACTED:email]": "owner" });
    // the application still gets the real values: sanitizers affect observability only
    expect(returned).toEqual({ result: { phone: PHONE, key: KEY }, annotation: { contact: EMAIL } });
    expect(runtime.diagnostics()).toEqual([]);
  });

  it("hash gives equal values equal tokens within a trace and different tokens across traces", async () => {
    const runtime = createRuntime();
    const events = capture(runtime);
    redactPII({ mode: "hash" }).register(runtime);
    for (const run of ["a", "b"]) {
      await runtime.withScope(run, async () => {
        runtime.mark("m1", { data: EMAIL });
        await runtime.withScope("inner", () => runtime.mark("m2", { data: `to: ${EMAIL}` }));
      });
    }
    await runtime.flush();
    const token = (name: string, run: number) => {
      const all = events.filter((e) => e.name === name);
      return JSON.stringify(all[run]!.data).match(/\[email:[0-9a-f]{12}\]/)![0];
    };
    expect(JSON.stringify(events)).not.toContain(EMAIL);
    expect(token("m1", 0)).toBe(token("m2", 0));
    expect(token("m1", 1)).toBe(token("m2", 1));
    expect(token("m1", 0)).not.toBe(token("m1", 1));
  });

  it("drop replaces the whole string that held PII and leaves clean strings alone", async () => {
    const { events } = await runWithPii("drop");
    const start = events.find((e) => e.kind === "scope" && e.scope_category === "start" && e.name === "run")!;
    expect(start.data).toEqual({ prompt: "[redacted]" });
    const toolStart = events.find((e) => e.kind === "scope" && e.scope_category === "start" && e.name === "lookup")!;
    expect(toolStart.data).toEqual({ email: "[redacted]", card: "[redacted]" });
    const end = events.find((e) => e.kind === "scope" && e.scope_category === "end" && e.name === "run")!;
    expect((end.metadata as Record<string, unknown>)["otel.status_code"]).toBe("OK");
  });

  it("does not flag look-alikes: uuids, timestamps, Luhn-invalid digit runs, plain numbers", () => {
    const redactor = redactPII();
    const clean = [
      "0190f3c5-7a2b-7c3d-8e4f-123456789abc",
      "01234567-1234-7123-8123-123456789012",
      "2024-06-01T10:20:30.123456Z",
      "order 4111 1111 1111 1112",
      "1718000000",
      "version 1.2.3",
    ];
    for (const text of clean) expect(redactor.redactValue(text)).toBe(text);
    expect(luhnValid("4111111111111111")).toBe(true);
    expect(redactor.redactValue("call (415) 555-0132 today")).toBe("call [REDACTED:phone] today");
    expect(redactor.redactValue("Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345")).toBe("Authorization: [REDACTED:api_key]");
  });

  it("extraPatterns and kinds select what is redacted; a pattern that matches empty text changes nothing", () => {
    const redactor = redactPII({ kinds: ["email"], extraPatterns: [{ name: "ticket", pattern: /TICKET-\d+/ }, /x*/] });
    expect(redactor.redactValue({ a: `TICKET-42 ${EMAIL} ${KEY}` })).toEqual({ a: `[REDACTED:ticket] [REDACTED:email] ${KEY}` });
  });

  it("rejects bad options with a clear message", () => {
    expect(() => redactPII({ mode: "blur" as never })).toThrow(/mode must be one of mask, hash, drop/);
    expect(() => redactPII({ kinds: ["ssn" as never] })).toThrow(/unknown kind ssn/);
    expect(() => redactPII({ extraPatterns: ["x" as never] })).toThrow(/extraPatterns\[0\] must be a RegExp/);
  });

  it("one register call can be undone with the returned function", async () => {
    const runtime = createRuntime();
    const events = capture(runtime);
    const remove = redactPII().register(runtime);
    runtime.mark("a", { data: EMAIL });
    remove();
    runtime.mark("b", { data: EMAIL });
    await runtime.flush();
    expect(events.map((e) => e.data)).toEqual(["[REDACTED:email]", EMAIL]);
  });

  it("keeps a JSON __proto__ key as data and scans a 10 MB string in bounded time", () => {
    const redactor = redactPII();
    const parsed = JSON.parse(`{"__proto__": {"mail": "${EMAIL}"}}`) as Record<string, unknown>;
    const out = redactor.redactValue(parsed as never) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(out, "__proto__")?.value).toEqual({ mail: "[REDACTED:email]" });
    // hostile shapes for the regexes: long runs that almost match
    for (const unit of ["a", "1", "sk-", "a.", "+1 ", "a@"]) {
      const big = unit.repeat(Math.ceil(2_000_000 / unit.length));
      const t0 = performance.now();
      redactor.redactValue(big);
      const ms = performance.now() - t0;
      console.info(`redact ${big.length} chars of ${JSON.stringify(unit)}: ${ms.toFixed(0)} ms`);
    }
  });
});
