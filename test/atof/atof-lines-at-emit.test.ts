import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AtofExporter } from "../../exporters/atof/index.js";
import { createTestClock } from "../../exporters/testing/clock.js";
import { createSequentialIds } from "../../exporters/testing/ids.js";
import type { AtofEvent } from "../../src/events/types.js";
import type { Json } from "../../src/events/json.js";
import { createRuntime, type Runtime } from "../../src/runtime/runtime.js";

// With only ATOF exporters subscribed, the runtime sanitizes and serializes each event on the
// emitting call and hands the exporters its line. These tests hold that path to what the
// structural path (a frozen copy delivered later, serialized by each exporter) records.

let dir: string;
let files = 0;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "relaytrace-atof-lines-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function fileExporter(): AtofExporter {
  files += 1;
  return new AtofExporter({ type: "file", path: join(dir, `events-${files}.jsonl`), mode: "overwrite" });
}

function deterministicRuntime(): Runtime {
  return createRuntime({ clock: createTestClock(), idGenerator: createSequentialIds(), pricing: false });
}

/** A real NDJSON receiver on loopback: every line it was sent, parsed. */
async function receiver(): Promise<{ url: string; events: AtofEvent[]; close: () => Promise<void> }> {
  const events: AtofEvent[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      for (const line of Buffer.concat(chunks).toString("utf8").split("\n")) if (line !== "") events.push(JSON.parse(line) as AtofEvent);
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const close = async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  };
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/atof`, events, close };
}

async function linesOf(exporter: AtofExporter): Promise<string[]> {
  const text = await readFile(exporter.filePath!, "utf8");
  return text.split("\n").filter((line) => line.length > 0);
}

/** How an emitted event's callbacks behave in one generated case. */
interface Setup {
  markSanitizer: "none" | "redact" | "throw-on-secret" | "return-garbage" | "mutate-fields";
  startSanitizer: "none" | "keep" | "throw-on-secret";
  endSanitizer: "none" | "drop-annotation" | "throw";
  injector: boolean;
  nameSanitizer: "none" | "upper" | "throw-on-secret";
  toolRequest: "none" | "drop-city" | "throw-on-secret";
  toolResponse: "none" | "wrap" | "throw";
}

type Step =
  | { op: "mark"; name: string; data: unknown; metadata: unknown }
  | { op: "tool"; name: string; args: unknown; result: unknown; annotation: unknown; toolCallId: string | undefined; fails: boolean }
  | { op: "scope"; name: string; input: unknown; output: unknown; metadata: unknown };

function register(runtime: Runtime, setup: Setup): void {
  const secret = (event: AtofEvent): boolean => String(event.name).includes("secret");
  if (setup.markSanitizer !== "none") {
    runtime.registerMarkSanitizer("marks", 1, (event, fields) => {
      switch (setup.markSanitizer) {
        case "redact":
          return { data: "[redacted]", categoryProfile: fields.categoryProfile, metadata: fields.metadata };
        case "throw-on-secret":
          if (secret(event)) throw new Error("no secrets");
          return fields;
        case "mutate-fields":
          // Changing what it was given in place, then returning it: the runtime's copy, never the app's value.
          if (fields.metadata !== null && typeof fields.metadata === "object" && !Array.isArray(fields.metadata)) {
            (fields.metadata as Record<string, Json>)["seen"] = true;
          }
          return fields;
        default:
          return 42 as never;
      }
    });
  }
  if (setup.startSanitizer !== "none") {
    runtime.registerScopeStartSanitizer("starts", 1, (event, fields) => {
      if (setup.startSanitizer === "throw-on-secret" && secret(event)) throw new Error("no secrets");
      return fields;
    });
  }
  if (setup.endSanitizer !== "none") {
    runtime.registerScopeEndSanitizer("ends", 1, (_event, fields) => {
      if (setup.endSanitizer === "throw") throw new Error("ends fail");
      return { data: fields.data, metadata: fields.metadata, categoryProfile: null };
    });
  }
  if (setup.injector) runtime.registerMetadataInjector("tenant", 1, () => ({ "tenant.id": "acme" }));
  if (setup.nameSanitizer !== "none") {
    runtime.registerEventNameSanitizer("names", 1, (name) => {
      if (setup.nameSanitizer === "throw-on-secret" && name.includes("secret")) throw new Error("no secret names");
      return setup.nameSanitizer === "upper" ? name.toUpperCase() : name;
    });
  }
  if (setup.toolRequest !== "none") {
    runtime.registerToolSanitizeRequest("request", 1, (tool, args) => {
      if (setup.toolRequest === "throw-on-secret" && tool.includes("secret")) throw new Error("no secrets");
      if (args !== null && typeof args === "object" && !Array.isArray(args)) {
        const { city: _city, ...rest } = args as Record<string, Json>;
        return rest;
      }
      return args;
    });
  }
  if (setup.toolResponse !== "none") {
    runtime.registerToolSanitizeResponse("response", 1, (_tool, result) => {
      if (setup.toolResponse === "throw") throw new Error("responses fail");
      return { wrapped: result };
    });
  }
}

async function play(runtime: Runtime, steps: readonly Step[]): Promise<void> {
  for (const step of steps) {
    if (step.op === "mark") {
      runtime.mark(step.name, { data: step.data as Json, metadata: step.metadata as Json });
    } else if (step.op === "scope") {
      const scope = runtime.pushScope(step.name, { input: step.input as Json, metadata: step.metadata as Json });
      runtime.popScope(scope, { output: step.output as Json });
    } else {
      const call = runtime.executeTool(
        step.name,
        step.args as Json,
        async () => {
          if (step.fails) throw new Error(`tool ${step.name} failed`);
          return { result: step.result as Json, annotation: step.annotation as Json };
        },
        step.toolCallId === undefined ? {} : { toolCallId: step.toolCallId },
      );
      await call.catch(() => undefined);
    }
  }
}

// Values of every kind an app may pass: plain JSON, and what a copy has to change (Dates, Maps,
// Sets, boxed values, typed arrays, BigInts, sparse arrays, null prototypes, `__proto__` keys).
const payload = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.anything({
    maxDepth: 3,
    withBigInt: true,
    withBoxedValues: true,
    withDate: true,
    withMap: true,
    withSet: true,
    withNullPrototype: true,
    withObjectString: true,
    withSparseArray: true,
    withTypedArray: true,
  }),
  fc.record({ city: fc.string(), days: fc.integer() }),
);
const name = fc.constantFrom("lookup", "secret_lookup", "plan", "secret");
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ op: fc.constant("mark" as const), name, data: payload, metadata: fc.oneof(fc.constant(null), payload) }),
  fc.record({
    op: fc.constant("tool" as const),
    name,
    args: payload,
    result: payload,
    annotation: fc.oneof(fc.constant(undefined), payload),
    toolCallId: fc.option(fc.constantFrom("call_1", "call_2"), { nil: undefined }),
    fails: fc.boolean(),
  }),
  fc.record({ op: fc.constant("scope" as const), name, input: payload, output: payload, metadata: fc.oneof(fc.constant(null), payload) }),
);
const setup: fc.Arbitrary<Setup> = fc.record({
  markSanitizer: fc.constantFrom("none", "redact", "throw-on-secret", "return-garbage", "mutate-fields"),
  startSanitizer: fc.constantFrom("none", "keep", "throw-on-secret"),
  endSanitizer: fc.constantFrom("none", "drop-annotation", "throw"),
  injector: fc.boolean(),
  nameSanitizer: fc.constantFrom("none", "upper", "throw-on-secret"),
  toolRequest: fc.constantFrom("none", "drop-city", "throw-on-secret"),
  toolResponse: fc.constantFrom("none", "wrap", "throw"),
});

describe("ATOF lines serialized on the emitting call", () => {
  it("are byte for byte the lines the structural path writes, with the same diagnostics, for any payload and sanitizers", async () => {
    await fc.assert(
      fc.asyncProperty(setup, fc.array(step, { minLength: 1, maxLength: 6 }), async (callbacks, steps) => {
        // Lines: only an ATOF exporter listens. Structural: a subscriber that needs the event joins it.
        const lineRuntime = deterministicRuntime();
        const lineExporter = fileExporter();
        lineExporter.register(lineRuntime);
        register(lineRuntime, callbacks);
        const structuralRuntime = deterministicRuntime();
        const structuralExporter = fileExporter();
        structuralExporter.register(structuralRuntime);
        const delivered: AtofEvent[] = [];
        structuralRuntime.subscribe("capture", (event) => void delivered.push(event));
        register(structuralRuntime, callbacks);

        await play(lineRuntime, steps);
        await play(structuralRuntime, steps);
        await lineRuntime.shutdown();
        await structuralRuntime.shutdown();

        const lines = await linesOf(lineExporter);
        expect(lines.length).toBe(delivered.length);
        expect(lines).toEqual(await linesOf(structuralExporter));
        // The same diagnostics; those of the stages are recorded on the emitting call, so sooner.
        const byCode = (runtime: Runtime) => runtime.diagnostics().sort((a, b) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
        expect(byCode(lineRuntime)).toEqual(byCode(structuralRuntime));
        expect(lineRuntime.getLastCallbackError()).toEqual(structuralRuntime.getLastCallbackError());
      }),
      { numRuns: 120 },
    );
  });

  it("never change when the app later mutates what it passed, whether delivered at once or queued behind other events", async () => {
    const runtime = deterministicRuntime();
    const exporter = fileExporter();
    exporter.register(runtime);

    const args = { city: "Oslo", days: [1, 2] };
    const result = { temp_c: 4, hourly: [{ t: 1 }] };
    const markData = { step: "plan", items: ["a"] };
    await runtime.executeTool("weather", args, async (a) => {
      (a as { city: string }).city = "changed inside the tool";
      return { result };
    });
    result.hourly[0]!.t = 99;
    args.days.push(3);
    runtime.mark("plan", { data: markData });
    markData.items.push("b");

    // An event for another subscriber is queued first: the next lines wait behind it, with the app
    // free to change its values before the queue is delivered.
    const remove = runtime.subscribe("other", () => undefined);
    runtime.mark("queued-before");
    remove();
    const later = { step: "later", items: ["x"] };
    runtime.mark("later", { data: later });
    const scopeInput = { prompt: "hi", history: [{ role: "user" }] };
    const scope = runtime.pushScope("turn", { input: scopeInput });
    scopeInput.history[0]!.role = "assistant";
    later.items[0] = "changed";
    runtime.popScope(scope);
    await runtime.shutdown();

    const events = (await linesOf(exporter)).map((line) => JSON.parse(line) as AtofEvent);
    expect(events.map((e) => e.name)).toEqual(["weather", "weather", "plan", "queued-before", "later", "turn", "turn"]);
    expect(events[0]!.data).toEqual({ city: "Oslo", days: [1, 2] });
    expect(events[1]!.data).toEqual({ temp_c: 4, hourly: [{ t: 1 }] });
    expect(events[2]!.data).toEqual({ step: "plan", items: ["a"] });
    expect(events[4]!.data).toEqual({ step: "later", items: ["x"] });
    expect(events[5]!.data).toEqual({ prompt: "hi", history: [{ role: "user" }] });
  });

  it("never change when queued and rewritten for their size: an oversized line keeps the payload as it was at the call", async () => {
    const sink = await receiver();
    try {
      const runtime = deterministicRuntime();
      // A receiver takes lines of at most one buffer: 4 KB here.
      const exporter = new AtofExporter({ type: "stream", url: sink.url, maxBufferedBytes: 4096, flushIntervalMillis: 1 });
      exporter.register(runtime);
      const remove = runtime.subscribe("other", () => undefined);
      runtime.mark("queued-before");
      remove();
      const data = { items: ["as called"] };
      runtime.mark("large", { data, metadata: { note: "x".repeat(10_000) } });
      data.items[0] = "changed after the call";
      await runtime.shutdown();

      const large = sink.events.find((e) => e.name === "large")!;
      expect(large.data).toEqual({ items: ["as called"] });
      expect(large.metadata).toEqual({ "relaytrace.omitted": expect.objectContaining({ bytes: expect.any(Number) }) });
    } finally {
      await sink.close();
    }
  });

  it("switch to the structural path while a subscriber that needs events is registered, and back once it is removed", async () => {
    const runtime = deterministicRuntime();
    const first = fileExporter();
    const second = fileExporter();
    first.register(runtime);
    second.register(runtime);
    runtime.mark("before");
    const seen: AtofEvent[] = [];
    const remove = runtime.subscribe("capture", (event) => void seen.push(event));
    const during = { n: 1 };
    runtime.mark("during", { data: during });
    during.n = 2;
    remove();
    runtime.mark("after");
    await runtime.shutdown();

    // The capture saw only the event emitted while it was registered, frozen; both files hold all
    // three, in order, the same bytes.
    expect(seen.map((e) => e.name)).toEqual(["during"]);
    expect(Object.isFrozen(seen[0]) && Object.isFrozen(seen[0]!.data)).toBe(true);
    const lines = await linesOf(first);
    expect(lines.map((line) => (JSON.parse(line) as AtofEvent).name)).toEqual(["before", "during", "after"]);
    expect(JSON.parse(lines[1]!)).toEqual(JSON.parse(JSON.stringify(seen[0])));
    expect(await linesOf(second)).toEqual(lines);
  });

  it("keep events a sanitizer emits behind what the app emitted before delivery, as the structural path does", async () => {
    const order = async (structural: boolean): Promise<string[]> => {
      const runtime = deterministicRuntime();
      const exporter = fileExporter();
      exporter.register(runtime);
      if (structural) runtime.subscribe("capture", () => undefined);
      runtime.registerMarkSanitizer("audit", 1, (event, fields) => {
        if (event.name === "first") runtime.mark("audit-of-first");
        return fields;
      });
      runtime.mark("first");
      runtime.mark("second");
      await runtime.shutdown();
      return (await linesOf(exporter)).map((line) => (JSON.parse(line) as AtofEvent).name);
    };
    expect(await order(true)).toEqual(["first", "second", "audit-of-first"]);
    expect(await order(false)).toEqual(["first", "second", "audit-of-first"]);
  });

  it("fail closed when a sanitizer throws: the payload is dropped, the event kept, the app unaffected", async () => {
    const runtime = deterministicRuntime();
    const exporter = fileExporter();
    exporter.register(runtime);
    runtime.registerScopeStartSanitizer("strict", 1, () => {
      throw new Error("sanitizer bug");
    });
    runtime.registerToolSanitizeResponse("strict", 1, () => {
      throw new Error("sanitizer bug");
    });
    const out = await runtime.executeTool("vault", { token: "sk-live-SECRET" }, async () => ({ result: { key: "sk-live-SECRET" } }));
    expect(out.result).toEqual({ key: "sk-live-SECRET" });
    await runtime.shutdown();

    const text = await readFile(exporter.filePath!, "utf8");
    expect(text).not.toContain("SECRET");
    const [start, end] = text
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as AtofEvent);
    expect([start!.data, start!.metadata, start!.category_profile]).toEqual([null, null, null]);
    expect(end!.data).toBeNull();
    expect(runtime.diagnostics().map((d) => d.code)).toEqual(
      expect.arrayContaining(["event_sanitizer_failed", "tool_sanitize_response_failed"]),
    );
  });
});
