// A callback that returns something hostile (an object with a throwing getter, a Proxy whose
// traps throw, a revoked Proxy) fails closed without losing the event: the scope still starts
// and ends in the ATOF file and as an OpenTelemetry span, its content withheld, and a diagnostic
// names the callback.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AtofExporter } from "../../exporters/atof/index.js";
import { SpanCapture } from "../../exporters/testing/index.js";
import type { AtofEvent } from "../../src/events/types.js";
import { createRuntime, type Runtime } from "../../src/runtime/runtime.js";

const SECRET = "hunter2-canary";

let dir = "";
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "relaytrace-hostile-returns-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function throwingGetter(field: string, base: object = {}): object {
  return Object.defineProperty(base, field, {
    enumerable: true,
    get() {
      throw new Error(`getter ${field} throws`);
    },
  });
}

function trapThrows(trap: keyof ProxyHandler<object>, target: object = { data: "clean" }): object {
  const handler: ProxyHandler<object> = {
    [trap]: () => {
      throw new Error(`${trap} trap throws`);
    },
  };
  return new Proxy(target, handler);
}

function revoked(): object {
  const { proxy, revoke } = Proxy.revocable({ data: "clean" }, {});
  revoke();
  return proxy;
}

const HOSTILE: [string, () => object][] = [
  ["an object whose data getter throws", () => throwingGetter("data")],
  ["an object whose categoryProfile getter throws", () => throwingGetter("categoryProfile", { data: null })],
  ["an object whose metadata getter throws", () => throwingGetter("metadata", { data: 1 })],
  ["a Proxy whose has trap throws", () => trapThrows("has")],
  ["a Proxy whose get trap throws", () => trapThrows("get")],
  ["a revoked Proxy", revoked],
];

interface Exported {
  lines: AtofEvent[];
  spans: Awaited<ReturnType<SpanCapture["spans"]>>;
}

/** Runs `app` on a runtime with an ATOF file and an OTel exporter; returns what both exported. */
async function exportedBy(name: string, setup: (rt: Runtime) => void, app: (rt: Runtime) => Promise<unknown>) {
  const rt = createRuntime();
  const path = join(dir, `${name.replace(/\W+/g, "-")}.jsonl`);
  new AtofExporter({ type: "file", path, mode: "overwrite" }).register(rt);
  const spans = new SpanCapture({ projection: "full" });
  spans.register(rt);
  setup(rt);
  const value = await app(rt);
  await rt.flush();
  const exported: Exported = { lines: [], spans: await spans.spans() };
  await rt.shutdown();
  const text = await readFile(path, "utf8");
  exported.lines = text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as AtofEvent);
  return { rt, value, exported, text };
}

describe("an event sanitizer returning something hostile", () => {
  for (const [label, make] of HOSTILE) {
    it(`${label}: the end event is exported everywhere with its content withheld`, async () => {
      const { rt, value, exported, text } = await exportedBy(
        label,
        (rt) => rt.registerScopeEndSanitizer("hostile", 1, () => make() as never),
        (rt) =>
          rt.withScope(
            "work",
            (scope) => {
              scope.setOutput({ secret: SECRET });
              return "app value";
            },
            { input: { q: 1 } },
          ),
      );
      expect(value).toBe("app value");
      const ends = exported.lines.filter((e) => e.kind === "scope" && e.scope_category === "end" && e.name === "work");
      expect(ends).toHaveLength(1);
      expect(ends[0]).toMatchObject({ data: null, metadata: null, category_profile: null });
      expect(text).not.toContain(SECRET);
      const span = exported.spans.find((s) => s.name === "work");
      expect(span, "the span ended with its end event").toBeDefined();
      expect(span!.status.message ?? "").not.toMatch(/not ended/);
      const failed = rt.diagnostics().find((d) => d.code === "event_sanitizer_failed");
      expect(failed?.message).toMatch(/hostile/);
      expect(rt.diagnostics().map((d) => d.code)).not.toContain("event_transform_failed");
    });
  }
});

describe("other callbacks returning something hostile", () => {
  it("an event sanitizer returning data that is a Proxy whose traps throw: the value is unreadable, the event goes on", async () => {
    const { value, exported, text } = await exportedBy(
      "unreadable-data",
      (rt) => rt.registerScopeEndSanitizer("hostile", 1, () => ({ data: trapThrows("ownKeys", { secret: SECRET }), metadata: { ok: 1 } })),
      (rt) => rt.withScope("work", () => "app value"),
    );
    expect(value).toBe("app value");
    const end = exported.lines.find((e) => e.kind === "scope" && e.scope_category === "end" && e.name === "work");
    expect(end).toMatchObject({ data: "[Unreadable]", metadata: { ok: 1 } });
    expect(text).not.toContain(SECRET);
    expect(exported.spans.map((s) => s.name)).toContain("work");
  });

  it("an app value that is a Proxy whose getPrototypeOf trap throws is recorded as unreadable, never thrown into the app", async () => {
    const { exported } = await exportedBy(
      "app-proxy",
      () => undefined,
      async (rt) => {
        rt.mark("noted", { data: trapThrows("getPrototypeOf", { secret: SECRET }) });
        return rt.withScope("work", () => "app value", { input: trapThrows("getPrototypeOf") as never });
      },
    );
    expect(exported.lines.find((e) => e.name === "noted")).toMatchObject({ data: "[Unreadable]" });
    expect(exported.lines.filter((e) => e.name === "work")).toHaveLength(2);
  });

  it("a metadata injector returning a Proxy whose ownKeys trap throws fails open: the event keeps its own metadata", async () => {
    const { rt, exported } = await exportedBy(
      "injector",
      (rt) => rt.registerMetadataInjector("hostile", 1, () => trapThrows("ownKeys") as never),
      (rt) => rt.withScope("work", () => undefined, { metadata: { kept: true } }),
    );
    const work = exported.lines.filter((e) => e.name === "work");
    expect(work.map((e) => (e.kind === "scope" ? e.scope_category : e.kind))).toEqual(["start", "end"]);
    expect(work[0]!.metadata).toEqual({ kept: true });
    expect(exported.spans.map((s) => s.name)).toContain("work");
    expect(rt.diagnostics().find((d) => d.code === "metadata_injector_failed")?.message).toMatch(/hostile/);
  });

  it("a subscriber returning a thenable whose then getter throws costs no later subscriber the event", async () => {
    const { rt, exported } = await exportedBy(
      "subscriber",
      (rt) => {
        rt.subscribe("hostile", () => throwingGetter("then") as never);
      },
      (rt) => rt.withScope("work", () => undefined),
    );
    // both exporters subscribed before the hostile one; a subscriber registered after it sees every event too
    expect(exported.lines.filter((e) => e.name === "work")).toHaveLength(2);
    const late: AtofEvent[] = [];
    rt.subscribe("late", (e) => void late.push(e));
    rt.subscribe("hostile-again", () => throwingGetter("then") as never);
    rt.subscribe("later", (e) => void late.push(e));
    await rt.withScope("again", () => undefined);
    await rt.flush();
    expect(late.filter((e) => e.name === "again")).toHaveLength(4);
    expect(rt.diagnostics().find((d) => d.code === "subscriber_failed")?.message).toMatch(/hostile/);
  });

  it("a tool response sanitizer returning a revoked Proxy withholds only the result; the tool still ends everywhere", async () => {
    const { rt, value, exported, text } = await exportedBy(
      "tool-response",
      (rt) => rt.registerToolSanitizeResponse("hostile", 1, () => revoked() as never),
      (rt) => rt.executeTool("lookup", { q: 1 }, () => ({ result: SECRET })),
    );
    expect(value).toEqual({ result: SECRET });
    const end = exported.lines.find((e) => e.kind === "scope" && e.scope_category === "end" && e.name === "lookup");
    expect([null, "[Unreadable]"]).toContainEqual(end!.data);
    expect(text).not.toContain(SECRET);
    expect(exported.spans.map((s) => s.name)).toContain("lookup");
    expect(rt.diagnostics().find((d) => d.code === "payload_not_json")?.message).toMatch(/tool_sanitize_response hostile.*unreadable/);
  });
});

describe("an app that throws something hostile", () => {
  const throwables: [string, () => unknown][] = [
    [
      "an object whose toString throws",
      () => ({
        toString: () => {
          throw new Error("toString throws");
        },
      }),
    ],
    [
      "an Error whose message getter throws",
      () =>
        Object.defineProperty(new Error("x"), "message", {
          get: () => {
            throw new Error("bad");
          },
        }),
    ],
    ["a Proxy whose getPrototypeOf trap throws", () => trapThrows("getPrototypeOf")],
  ];
  for (const [label, make] of throwables) {
    it(`${label}: the app gets its own error back, and the tool, the scope and a guardrail end everywhere`, async () => {
      const thrown = [make(), make(), make()];
      const { rt, value, exported } = await exportedBy(
        `thrown-${label}`,
        (rt) =>
          rt.registerToolConditionalGuardrail("picky", 1, (tool) => {
            if (tool === "guarded") throw thrown[2];
            return null;
          }),
        async (rt) => {
          const caught: unknown[] = [];
          await rt.executeTool("fails", {}, () => Promise.reject(thrown[0])).catch((e: unknown) => caught.push(e));
          await rt.withScope("work", () => Promise.reject(thrown[1])).catch((e: unknown) => caught.push(e));
          await rt.executeTool("guarded", {}, () => ({ result: 1 })).catch((e: unknown) => caught.push(e));
          return caught;
        },
      );
      expect(value).toHaveLength(3);
      (value as unknown[]).forEach((e, i) => expect(e).toBe(thrown[i]));
      const endOf = (name: string) => exported.lines.find((e) => e.kind === "scope" && e.scope_category === "end" && e.name === name);
      for (const name of ["fails", "work"]) expect(endOf(name)?.metadata, name).toMatchObject({ "otel.status_code": "ERROR" });
      const guardrailEnds = exported.lines.filter((e) => e.kind === "scope" && e.scope_category === "end" && e.name === "picky");
      expect(guardrailEnds.map((e) => (e.data as { allowed: boolean }).allowed)).toEqual([true, false]);
      const names = exported.spans.map((s) => s.name);
      expect(names).toEqual(expect.arrayContaining(["fails", "work", "picky"]));
      expect(rt.diagnostics()).toEqual([]);
    });
  }
});
