// The OpenTelemetry context, both ways: a relaytrace trace continues the app's active span, and
// spans the app (or its undici instrumentation) opens inside relaytrace callbacks nest under the
// relaytrace tool/LLM span. Real SDK objects, a real undici request to a loopback server.
import { execFile } from "node:child_process";
import { mkdtemp, readFile } from "node:fs/promises";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { context, createContextKey, trace, TraceFlags } from "@opentelemetry/api";
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { UndiciInstrumentation } from "@opentelemetry/instrumentation-undici";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AtofExporter } from "../../exporters/atof/index.js";
import { SpanCapture } from "../../exporters/testing/index.js";
import {
  capturePropagationContext,
  createClient,
  createToolkit,
  extractTraceContext,
  injectTraceContext,
  propagationContextFromJson,
  propagationContextToJson,
  type PropagationContext,
} from "../../src/index.js";
import { createRuntime } from "../../src/runtime/runtime.js";

const CLI = fileURLToPath(new URL("../../dist/src/cli/main.js", import.meta.url));
const PROJECTIONS = ["full", "openinference", "gen_ai"] as const;

// The app's own setup: a Node tracer provider registered globally (async-hooks context manager, W3C propagator).
const appSpans = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(appSpans)] });
provider.register();
const tracer = provider.getTracer("app");
const undiciInstrumentation = new UndiciInstrumentation();
undiciInstrumentation.setTracerProvider(provider);

let server: Server;
let base: string;
let lastHeaders: IncomingHttpHeaders = {};

beforeAll(async () => {
  undiciInstrumentation.enable();
  server = createServer((req, res) => {
    lastHeaders = req.headers;
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ model: "gpt-test", choices: [{ message: { role: "assistant", content: "hi" }, finish_reason: "stop" }] }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  undiciInstrumentation.disable();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  context.disable();
});

function captures() {
  const rt = createRuntime();
  const byProjection = PROJECTIONS.map((projection) => {
    const capture = new SpanCapture({ projection });
    capture.register(rt);
    return capture;
  });
  return { rt, byProjection };
}

function byName(spans: ReadableSpan[], name: string): ReadableSpan {
  const found = spans.find((s) => s.name === name || s.name.endsWith(` ${name}`));
  if (!found) throw new Error(`no span ${name} among ${spans.map((s) => s.name).join(", ")}`);
  return found;
}

describe("inbound: a relaytrace trace continues the app's active span", () => {
  it("uses the app span's trace id and parents the relaytrace root to it in all three projections", async () => {
    const { rt, byProjection } = captures();
    const appSpan = await tracer.startActiveSpan("GET /ask", async (span) => {
      await rt.withScope("support-agent", () => rt.executeTool("lookup", { q: "x" }, () => ({ result: "ok" })), { category: "agent" });
      span.end();
      return span;
    });
    await rt.flush();
    const app = appSpan.spanContext();
    for (const capture of byProjection) {
      const spans = await capture.spans();
      const root = byName(spans, "support-agent");
      const tool = byName(spans, "lookup");
      expect(root.spanContext().traceId).toBe(app.traceId);
      expect(root.parentSpanContext?.spanId).toBe(app.spanId);
      expect(root.parentSpanContext?.traceId).toBe(app.traceId);
      expect(tool.spanContext().traceId).toBe(app.traceId);
      expect(tool.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
    }
  });

  it("manual scopes pushed one after another under the app's span each continue it, with their children", async () => {
    const { rt, byProjection } = captures();
    const appSpan = await tracer.startActiveSpan("GET /steps", async (span) => {
      for (const name of ["step-1", "step-2"]) {
        const scope = rt.pushScope(name, { category: "agent" });
        await rt.executeTool(`${name}-tool`, {}, () => ({ result: null }));
        rt.popScope(scope);
      }
      // A top-level tool call after both continues the app's span too.
      await rt.executeTool("last-tool", {}, () => ({ result: null }));
      span.end();
      return span;
    });
    await rt.flush();
    const app = appSpan.spanContext();
    for (const capture of byProjection) {
      const spans = await capture.spans();
      for (const name of ["step-1", "step-2"]) {
        const step = byName(spans, name);
        expect(step.parentSpanContext).toMatchObject({ traceId: app.traceId, spanId: app.spanId });
        expect(byName(spans, `${name}-tool`).parentSpanContext?.spanId).toBe(step.spanContext().spanId);
        expect(byName(spans, `${name}-tool`).spanContext().traceId).toBe(app.traceId);
      }
      expect(byName(spans, "last-tool").parentSpanContext).toMatchObject({ traceId: app.traceId, spanId: app.spanId });
    }
  });

  it("manual tool and LLM calls follow the same parent rule as managed ones: they continue the app's span", async () => {
    const { rt, byProjection } = captures();
    const appSpan = await tracer.startActiveSpan("POST /manual", async (span) => {
      const tool = rt.startTool("manual-tool", { q: 1 });
      rt.endTool(tool, { result: "done" });
      const llm = rt.startLlm("manual-llm", { content: { messages: [] } });
      rt.endLlm(llm, { choices: [] });
      // An explicit parent still wins over the app's span.
      await rt.withScope("explicit-parent", async (scope) => {
        await context.with(trace.setSpan(context.active(), span), async () => {
          rt.endTool(rt.startTool("under-explicit", {}, { parent: scope }), { result: null });
        });
      });
      span.end();
      return span;
    });
    await rt.flush();
    const app = appSpan.spanContext();
    for (const capture of byProjection) {
      const spans = await capture.spans();
      const llm = spans.find((s) => s.name === "manual-llm" || s.name === "chat"); // gen_ai names it by operation
      for (const span of [byName(spans, "manual-tool"), llm!]) {
        expect(span.spanContext().traceId).toBe(app.traceId);
        expect(span.parentSpanContext).toMatchObject({ traceId: app.traceId, spanId: app.spanId });
      }
      const explicit = byName(spans, "explicit-parent");
      expect(byName(spans, "under-explicit").parentSpanContext?.spanId).toBe(explicit.spanContext().spanId);
    }
  });

  it("records the link in the ATOF stream, so `relaytrace convert` of the file reproduces the parent", async () => {
    const dir = await mkdtemp(join(tmpdir(), "relaytrace-otel-ctx-"));
    const path = join(dir, "run.jsonl");
    const rt = createRuntime();
    const atof = new AtofExporter({ type: "file", path });
    atof.register(rt);
    const appSpan = await tracer.startActiveSpan("POST /jobs", async (span) => {
      await rt.withScope("job", () => "done", { category: "agent", metadata: { job: 7 } });
      span.end();
      return span;
    });
    await rt.shutdown();
    const first = JSON.parse((await readFile(path, "utf8")).split("\n")[0]!);
    expect(first.metadata).toEqual({
      job: 7,
      "otel.traceparent": `00-${appSpan.spanContext().traceId}-${appSpan.spanContext().spanId}-01`,
    });
    const out = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, [CLI, "convert", path, "--to", "otlp-json"], (error, stdout) => (error ? reject(error) : resolve(stdout))),
    );
    const span = JSON.parse(out).resourceSpans[0].scopeSpans[0].spans[0];
    expect(span.traceId).toBe(appSpan.spanContext().traceId);
    expect(span.parentSpanId).toBe(appSpan.spanContext().spanId);
  });

  it("starts its own trace when no OpenTelemetry span is active", async () => {
    const { rt, byProjection } = captures();
    await rt.withScope("alone", () => null, { category: "agent" });
    const [root] = await byProjection[0]!.spans();
    expect(root!.parentSpanContext).toBeUndefined();
  });
});

describe("outbound: inside relaytrace callbacks the relaytrace span is the active OpenTelemetry span", () => {
  it("nests the app's own spans under the relaytrace tool span", async () => {
    const { rt, byProjection } = captures();
    appSpans.reset();
    await rt.withScope(
      "agent",
      () =>
        rt.executeTool("search", { q: "otel" }, () => {
          tracer.startActiveSpan("db.query", (span) => span.end());
          return { result: [] };
        }),
      { category: "agent" },
    );
    const spans = await byProjection[0]!.spans();
    const tool = byName(spans, "search");
    const [user] = appSpans.getFinishedSpans().filter((s) => s.name === "db.query");
    expect(user!.spanContext().traceId).toBe(tool.spanContext().traceId);
    expect(user!.parentSpanContext?.spanId).toBe(tool.spanContext().spanId);
  });

  it("uses the exporters' span ids when the runtime's idGenerator makes ids that are not uuids", async () => {
    let n = 0;
    const rt = createRuntime({ idGenerator: () => `job-${++n}` });
    const capture = new SpanCapture({ projection: "full" });
    capture.register(rt);
    appSpans.reset();
    const outgoing: Record<string, string> = {};
    let traceparent = "";
    await rt.withScope(
      "agent",
      () =>
        rt.executeTool("search", {}, () => {
          tracer.startActiveSpan("db.query", (span) => span.end());
          injectTraceContext(outgoing);
          traceparent = rt.captureTraceparent();
          return { result: [] };
        }),
      { category: "agent" },
    );
    const tool = byName(await capture.spans(), "search");
    const expected = `00-${tool.spanContext().traceId}-${tool.spanContext().spanId}-01`;
    expect(outgoing.traceparent).toBe(expected);
    expect(traceparent).toBe(expected);
    const [user] = appSpans.getFinishedSpans().filter((s) => s.name === "db.query");
    expect(user!.spanContext().traceId).toBe(tool.spanContext().traceId);
    expect(user!.parentSpanContext?.spanId).toBe(tool.spanContext().spanId);
  });

  it("nests the undici client span of the real provider request under the relaytrace llm span, inside the app's request span", async () => {
    const { rt, byProjection } = captures();
    appSpans.reset();
    const appSpan = await tracer.startActiveSpan("GET /chat", async (span) => {
      await rt.withScope(
        "agent",
        () =>
          rt.executeLlm(
            "openai.chat",
            { headers: {}, content: { model: "gpt-test", messages: [{ role: "user", content: "hi" }] } },
            async () => {
              const res = await request(`${base}/v1/chat/completions`, { method: "POST", body: "{}" });
              return (await res.body.json()) as never;
            },
          ),
        { category: "agent" },
      );
      span.end();
      return span;
    });
    for (const capture of byProjection) {
      const spans = await capture.spans();
      const llm = spans.find((s) => s.kind === 2 /* CLIENT */)!;
      const client = appSpans.getFinishedSpans().find((s) => s.name === "POST")!;
      expect(client, "undici span").toBeDefined();
      expect(client.spanContext().traceId).toBe(appSpan.spanContext().traceId);
      expect(llm.spanContext().traceId).toBe(appSpan.spanContext().traceId);
      expect(client.parentSpanContext?.spanId).toBe(llm.spanContext().spanId);
      // the header the provider saw names the undici span, a child of the llm span, in the same trace
      expect(lastHeaders.traceparent).toBe(`00-${appSpan.spanContext().traceId}-${client.spanContext().spanId}-01`);
    }
  });

  it("runs the agent loop's provider call under the llm span with exactly one traceparent (the undici span's)", async () => {
    const { rt, byProjection } = captures();
    appSpans.reset();
    const client = createClient({ baseUrl: `${base}/v1`, style: "openai", model: "gpt-test", apiKey: "sk-test", runtime: rt });
    const appSpan = await tracer.startActiveSpan("GET /ask", async (span) => {
      await client.run("hi", { toolkit: await createToolkit({}) });
      span.end();
      return span;
    });
    const spans = await byProjection[0]!.spans();
    const llm = spans.find((s) => s.kind === 2 /* CLIENT */)!;
    const client0 = appSpans.getFinishedSpans().find((s) => s.name === "POST")!;
    expect(llm.spanContext().traceId).toBe(appSpan.spanContext().traceId);
    expect(client0.parentSpanContext?.spanId).toBe(llm.spanContext().spanId);
    expect(lastHeaders.traceparent).toBe(`00-${appSpan.spanContext().traceId}-${client0.spanContext().spanId}-01`);
  });

  it("keeps the app's not-sampled decision for spans opened inside relaytrace callbacks", async () => {
    const { rt } = captures();
    const unsampled = trace.setSpanContext(context.active(), {
      traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
      spanId: "00f067aa0ba902b7",
      traceFlags: TraceFlags.NONE,
      isRemote: true,
    });
    const flags = await context.with(unsampled, () =>
      rt.withScope("agent", () => trace.getSpanContext(context.active())!.traceFlags, { category: "agent" }),
    );
    expect(flags).toBe(TraceFlags.NONE);
  });
});

describe("the OpenTelemetry context inside relaytrace callbacks is a full context", () => {
  it("keeps the app's own context values, and contexts derived from it keep the relaytrace span", async () => {
    const { rt, byProjection } = captures();
    const tenant = createContextKey("app tenant");
    const request = createContextKey("app request");
    const seen = await context.with(context.active().setValue(tenant, "acme"), () =>
      rt.withScope(
        "agent",
        () =>
          rt.executeTool("lookup", {}, () => {
            const inside = context.active();
            const derived = inside.setValue(request, 42);
            const withoutTenant = inside.deleteValue(tenant);
            return {
              result: {
                tenant: inside.getValue(tenant) as string,
                derivedTenant: derived.getValue(tenant) as string,
                derivedRequest: derived.getValue(request) as number,
                deletedTenant: (withoutTenant.getValue(tenant) as string | undefined) ?? null,
                insideSpan: trace.getSpanContext(inside)!.spanId,
                derivedSpan: trace.getSpanContext(derived)!.spanId,
                deletedSpan: trace.getSpanContext(withoutTenant)!.spanId,
                requestOutside: (inside.getValue(request) as number | undefined) ?? null,
              },
            };
          }),
        { category: "agent" },
      ),
    );
    const tool = byName(await byProjection[0]!.spans(), "lookup");
    const spanId = tool.spanContext().spanId;
    expect(seen.result).toEqual({
      tenant: "acme",
      derivedTenant: "acme",
      derivedRequest: 42,
      deletedTenant: null,
      insideSpan: spanId,
      derivedSpan: spanId,
      deletedSpan: spanId,
      requestOutside: null,
    });
  });
});

describe("across services: extractTraceContext / injectTraceContext", () => {
  const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
  const spanId = "00f067aa0ba902b7";

  it("joins the caller's trace from incoming W3C headers (Headers, a record, or IncomingHttpHeaders)", async () => {
    const forms = [
      new Headers({ traceparent: `00-${traceId}-${spanId}-01`, tracestate: "vendor=1" }),
      { Traceparent: `00-${traceId}-${spanId}-01` },
      { traceparent: [`00-${traceId}-${spanId}-01`], tracestate: undefined } as IncomingHttpHeaders,
    ];
    for (const headers of forms) {
      const ctx = extractTraceContext(headers);
      expect(ctx).toBeDefined();
      const { rt, byProjection } = captures();
      await rt.withPropagation(ctx!, () => rt.withScope("handler", () => null, { category: "agent" }));
      for (const capture of byProjection) {
        const [root] = await capture.spans();
        expect(root!.spanContext().traceId).toBe(traceId);
        expect(root!.parentSpanContext?.spanId).toBe(spanId);
      }
    }
  });

  it("keeps the caller's tracestate and sampled flag: on the spans, in outgoing headers and through the JSON text", async () => {
    const sampledTrace = "5bf92f3577b34da6a3ce929d0e0e4737";
    const incoming = { traceparent: `00-${sampledTrace}-${spanId}-01`, tracestate: "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7" };
    const ctx = extractTraceContext(incoming)!;
    expect(ctx).toMatchObject({ traceFlags: 1, tracestate: "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7" });
    // A context stored as JSON text (a durable resume, a queue message) keeps them too.
    const restored = propagationContextFromJson(propagationContextToJson(ctx));
    expect(restored).toEqual(ctx);
    const { rt, byProjection } = captures();
    const outgoing: Record<string, string> = {};
    let captured: PropagationContext | undefined;
    await rt.withPropagation(restored, () =>
      rt.withScope(
        "handler",
        () =>
          rt.executeTool("call-next", {}, () => {
            injectTraceContext(outgoing);
            captured = capturePropagationContext();
            return { result: null };
          }),
        { category: "agent" },
      ),
    );
    expect(outgoing.tracestate).toBe(incoming.tracestate);
    expect(outgoing.traceparent).toMatch(new RegExp(`^00-${sampledTrace}-[0-9a-f]{16}-01$`));
    expect(captured).toMatchObject({ traceFlags: 1, tracestate: incoming.tracestate });
    for (const capture of byProjection) {
      const spans = await capture.spans();
      const root = byName(spans, "handler");
      expect(root.parentSpanContext?.traceState?.serialize()).toBe(incoming.tracestate);
      for (const span of spans) expect(span.spanContext().traceState?.serialize()).toBe(incoming.tracestate);
    }
  });

  it("an unsampled caller stays unsampled: no spans are exported and outgoing headers say 00", async () => {
    const unsampledTrace = "6bf92f3577b34da6a3ce929d0e0e4738";
    const ctx = extractTraceContext(new Headers({ traceparent: `00-${unsampledTrace}-${spanId}-00` }))!;
    expect(ctx.traceFlags).toBe(0);
    const { rt, byProjection } = captures();
    const outgoing = new Headers();
    let traceparent = "";
    await rt.withPropagation(ctx, () =>
      rt.withScope(
        "handler",
        () => {
          injectTraceContext(outgoing);
          traceparent = rt.captureTraceparent();
        },
        { category: "agent" },
      ),
    );
    expect(outgoing.get("traceparent")).toMatch(new RegExp(`^00-${unsampledTrace}-[0-9a-f]{16}-00$`));
    expect(traceparent).toMatch(/-00$/);
    for (const capture of byProjection) expect(await capture.spans()).toEqual([]);
  });

  it("returns undefined for missing or malformed traceparent headers", () => {
    expect(extractTraceContext({})).toBeUndefined();
    expect(extractTraceContext({ traceparent: "garbage" })).toBeUndefined();
    expect(extractTraceContext({ traceparent: `00-${"0".repeat(32)}-${spanId}-01` })).toBeUndefined();
    expect(extractTraceContext({ traceparent: `ff-${traceId}-${spanId}-01` })).toBeUndefined();
  });

  it("writes the current relaytrace span's traceparent into outgoing headers", async () => {
    const { rt, byProjection } = captures();
    const headers: Record<string, string> = { "content-type": "application/json" };
    const fetchHeaders = new Headers();
    await rt.withScope(
      "caller",
      () =>
        rt.executeTool("call-service", {}, () => {
          injectTraceContext(headers);
          injectTraceContext(fetchHeaders);
          return { result: null };
        }),
      { category: "agent" },
    );
    const spans = await byProjection[0]!.spans();
    const tool = byName(spans, "call-service");
    const expected = `00-${tool.spanContext().traceId}-${tool.spanContext().spanId}-01`;
    expect(headers.traceparent).toBe(expected);
    expect(fetchHeaders.get("traceparent")).toBe(expected);
  });

  it("writes the active OpenTelemetry span's traceparent and tracestate outside relaytrace", () => {
    const headers: Record<string, string> = {};
    tracer.startActiveSpan("outer", (span) => {
      injectTraceContext(headers);
      span.end();
      expect(headers.traceparent).toBe(`00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`);
    });
    const none: Record<string, string> = {};
    injectTraceContext(none);
    expect(none).toEqual({});
  });
});
