// The core paths of relaytrace on any JavaScript runtime that speaks Node's APIs (Node, Bun, Deno):
// the quickstart (the loop with a tool call against a loopback model server, ATOF and ATIF files),
// the runtime's scope and tool lifecycle, OTLP export over HTTP/JSON and HTTP/protobuf to a
// loopback receiver, prices from the bundled table and the logs and metrics signals with no opt-in
// import, and SpanCapture. Runs the BUILT package (npm run build first):
//   node test/runtimes/core-suite.mjs | bun test/runtimes/core-suite.mjs | deno run -A test/runtimes/core-suite.mjs
// Prints one line per check and a closing "N passed, N failed" line; exits 1 on any failure.
import { createServer } from "node:http";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient, createRuntime, createToolkit, defineTool } from "../../dist/src/index.js";
import { AtifExporter, AtofExporter, OtelExporter } from "../../dist/exporters/index.js";
import { SpanCapture, startScriptedProvider } from "../../dist/exporters/testing/index.js";

const runtimeName = globalThis.Bun
  ? `bun ${globalThis.Bun.version}`
  : globalThis.Deno
    ? `deno ${globalThis.Deno.version.deno}`
    : `node ${process.version}`;
const results = [];

async function check(name, fn) {
  try {
    await fn();
    results.push({ name, ok: true });
    console.log(`ok   ${name}`);
  } catch (error) {
    results.push({ name, ok: false });
    console.log(`FAIL ${name}: ${error && error.stack ? error.stack : error}`);
  }
}

function assert(condition, message) {
  if (!condition) throw new Error(message);
}

function equal(actual, expected, what) {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) throw new Error(`${what}: expected ${e}, got ${a}`);
}

/** A loopback OTLP receiver that keeps each request's path, content type and body. */
async function startReceiver() {
  const requests = [];
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      requests.push({ path: req.url, type: req.headers["content-type"], body: Buffer.concat(chunks) });
      res.writeHead(200, { "content-type": req.headers["content-type"] ?? "application/json" });
      res.end(req.headers["content-type"]?.includes("json") ? "{}" : "");
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}`, requests, close: () => new Promise((resolve) => server.close(resolve)) };
}

const add = defineTool({
  name: "add",
  description: "Add two numbers",
  inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
  execute: ({ a, b }) => String(a + b),
});

const work = await mkdtemp(join(tmpdir(), "relaytrace-runtimes-"));
try {
  await check("quickstart: the loop runs a tool call against a loopback model and writes ATOF and ATIF files", async () => {
    const model = await startScriptedProvider({
      turns: [{ toolCalls: [{ id: "call_1", name: "add", arguments: { a: 3, b: 4 } }] }, { text: "3 + 4 = 7" }],
    });
    const out = join(work, "quickstart");
    const runtime = createRuntime();
    new AtofExporter({ type: "file", outputDirectory: out }).register(runtime);
    new AtifExporter({ outputDirectory: out, agent: { name: "calculator", version: "1.0.0" } }).register(runtime);
    const client = createClient({ baseUrl: model.url, style: "openai", model: "gpt-4.1-mini", apiKey: "sk-demo", runtime });
    const result = await client.run("What is 3 + 4?", { toolkit: await createToolkit({ tools: [add] }) });
    await runtime.shutdown();
    await model.close();
    equal([result.status, result.text], ["done", "3 + 4 = 7"], "run result");
    equal(
      result.toolCalls.map((c) => [c.name, c.output]),
      [["add", "7"]],
      "tool calls",
    );
    const files = (await readdir(out)).sort();
    const atofFile = files.find((f) => f.endsWith(".jsonl"));
    const atifFile = files.find((f) => f.endsWith(".json"));
    assert(atofFile && atifFile, `expected one .jsonl and one .json file, got ${files.join(", ")}`);
    const lines = (await readFile(join(out, atofFile), "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const tools = lines.filter((e) => e.kind === "scope" && e.category === "tool").map((e) => `${e.scope_category}:${e.name}`);
    equal(tools, ["start:add", "end:add"], "ATOF tool events");
    const atif = JSON.parse(await readFile(join(out, atifFile), "utf8"));
    assert(String(atif.schema_version).startsWith("ATIF-v"), `ATIF schema_version: ${atif.schema_version}`);
    assert(
      atif.steps.some((s) => (s.tool_calls ?? []).some((c) => c.function_name === "add")),
      "ATIF has the add call",
    );
  });

  await check("runtime: scopes and tool calls nest, in order, with their data", async () => {
    const runtime = createRuntime();
    const events = [];
    runtime.subscribe("capture", (e) => events.push(e));
    const reply = await runtime.withScope(
      "agent",
      async () => {
        const tool = await runtime.executeTool("lookup", { q: "x" }, (args) => ({
          result: { found: args.q },
          annotation: { cached: true },
        }));
        runtime.mark("checkpoint");
        return tool.result;
      },
      { category: "agent", input: { task: "t" } },
    );
    await runtime.flush();
    equal(reply, { found: "x" }, "tool result");
    const agent = events.find((e) => e.name === "agent" && e.scope_category === "start");
    const toolStart = events.find((e) => e.name === "lookup" && e.scope_category === "start");
    const toolEnd = events.find((e) => e.name === "lookup" && e.scope_category === "end");
    equal(toolStart.parent_uuid, agent.uuid, "tool parent");
    equal(toolEnd.data, { found: "x" }, "tool end data");
    equal(
      events.map((e) => `${e.kind}:${e.scope_category ?? ""}:${e.name}`),
      ["scope:start:agent", "scope:start:lookup", "scope:end:lookup", "mark::checkpoint", "scope:end:agent"],
      "event order",
    );
    await runtime.shutdown();
  });

  for (const protocol of ["http/json", "http/protobuf"]) {
    await check(`OTLP ${protocol} export reaches a loopback receiver with every span`, async () => {
      const receiver = await startReceiver();
      const runtime = createRuntime();
      new OtelExporter({ projection: "full", protocol, endpoint: `${receiver.url}/v1/traces`, serviceName: "runtimes" }).register(runtime);
      await runtime.withScope("agent", () => runtime.executeTool("lookup", { q: 1 }, () => ({ result: 2 })), { category: "agent" });
      // forceFlush resolves once the receiver has answered: what a serverless handler relies on.
      await runtime.forceFlush();
      assert(
        receiver.requests.some((r) => r.path === "/v1/traces"),
        "forceFlush resolved before the spans were delivered",
      );
      await runtime.shutdown();
      await receiver.close();
      const traces = receiver.requests.filter((r) => r.path === "/v1/traces");
      assert(traces.length >= 1, `no trace request (requests: ${receiver.requests.map((r) => r.path).join(", ")})`);
      const body = Buffer.concat(traces.map((r) => r.body));
      if (protocol === "http/json") {
        equal(traces[0].type, "application/json", "content type");
        const names = traces.flatMap((r) =>
          JSON.parse(r.body.toString()).resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans.map((s) => s.name))),
        );
        equal(names.sort(), ["agent", "lookup"], "span names");
      } else {
        equal(traces[0].type, "application/x-protobuf", "content type");
        const text = body.toString("latin1");
        assert(text.includes("agent") && text.includes("lookup"), "protobuf body names both spans");
      }
    });
  }

  // Bundles for Workers and browsers hold the price table and the logs and metrics SDKs only on
  // request (package.json "imports"); these runtimes load them from the install, with no import.
  await check("with no opt-in import, a model call is priced from the bundled table and logs and metrics reach the receiver", async () => {
    const receiver = await startReceiver();
    const runtime = createRuntime();
    const events = [];
    runtime.subscribe("events", (e) => void events.push(e));
    const exporter = new OtelExporter({
      projection: "gen_ai",
      protocol: "http/json",
      endpoint: `${receiver.url}/v1/traces`,
      logs: true,
      metrics: true,
    });
    exporter.register(runtime);
    try {
      const reply = {
        model: "gpt-4o-mini-2024-07-18",
        choices: [{ index: 0, message: { role: "assistant", content: "hi" }, finish_reason: "stop" }],
        usage: { prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100 },
      };
      await runtime.withScope(
        "agent",
        async () => {
          runtime.mark("checkpoint");
          await runtime.executeLlm("openai.chat.completions", { content: { model: "gpt-4o-mini", messages: [] } }, async () => reply);
        },
        { category: "agent" },
      );
      await runtime.forceFlush();
      const costs = events
        .filter((e) => e.kind === "scope" && e.category === "llm" && e.scope_category === "end")
        .map((e) => e.category_profile?.cost?.total);
      // gpt-4o-mini: 1,000 × $0.15 + 100 × $0.60 per million tokens.
      equal(costs, [0.00021], "cost");
      equal(runtime.diagnostics(), [], "diagnostics");
      const paths = new Set(receiver.requests.map((r) => r.path));
      equal([...paths].sort(), ["/v1/logs", "/v1/metrics", "/v1/traces"], "paths received");
    } finally {
      await runtime.shutdown();
      await receiver.close();
    }
  });

  await check("SpanCapture holds the projected spans, parent-linked", async () => {
    const runtime = createRuntime();
    const capture = new SpanCapture({ projection: "openinference" });
    capture.register(runtime);
    await runtime.withScope("agent", () => runtime.executeTool("lookup", { q: 1 }, () => ({ result: 2 })), { category: "agent" });
    const spans = await capture.spans();
    const agent = spans.find((s) => s.name === "agent");
    const tool = spans.find((s) => s.name === "lookup");
    assert(agent && tool, `spans: ${spans.map((s) => s.name).join(", ")}`);
    equal(tool.parentSpanContext?.spanId ?? tool.parentSpanId, agent.spanContext().spanId, "tool span parent");
    equal(tool.attributes["openinference.span.kind"], "TOOL", "openinference kind");
    await runtime.shutdown();
  });
} finally {
  await rm(work, { recursive: true, force: true });
}

const failed = results.filter((r) => !r.ok).length;
console.log(`core suite on ${runtimeName}`);
console.log(`${results.length - failed} passed, ${failed} failed`);
process.exitCode = failed === 0 ? 0 : 1;
