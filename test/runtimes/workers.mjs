// relaytrace on Cloudflare Workers: bundles Workers the way wrangler does (esbuild, the "workerd",
// "worker" and "browser" conditions, node:* left to the runtime) and serves them with one workerd
// (outbound network limited to loopback), each in its own isolate:
// - test/runtimes/worker/worker.mjs twice, with one runtime for the isolate and with one runtime
//   per request: 20 requests one after another, 20 at once, the ATOF stream exporter, a flush
//   awaited in the Worker, and one agent run against a loopback model server; it imports
//   "relaytrace/prices" and "relaytrace/exporters/signals", so its calls are priced and its marks
//   and GenAI metrics arrive as OTLP logs and metrics;
// - test/runtimes/worker/default-worker.mjs, without those imports: its priced call and its logs
//   and metrics each get the diagnostic that names the import to add, and its spans still arrive;
// - every block of docs/runtimes.md marked `readme-test: worker`, as written: 20 requests each.
// Every request must answer 200, and a loopback OTLP receiver must get every trace, parent-linked,
// through the forceFlush each request hands to ctx.waitUntil. workerd must log no request's I/O
// touched from another. Bundles the BUILT package (npm run build first; the Workers import
// "relaytrace" by name, which resolves to dist/ through package.json "exports"):
//   node test/runtimes/workers.mjs WORKERD [--compatibility-date=YYYY-MM-DD] [--compatibility-flags=a,b]
// The compatibility date defaults to the binary's own (`workerd --version`), the flags to none.
// Prints one line per check and a closing "N passed, N failed" line; exits 1 on any failure.
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:http";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import protobuf from "protobufjs";
import { startScriptedProvider } from "../../dist/exporters/testing/index.js";

const [WORKERD, ...flags] = process.argv.slice(2);
const option = (name) => flags.find((f) => f.startsWith(`--${name}=`))?.slice(name.length + 3);
const VERSION = execFileSync(WORKERD, ["--version"], { encoding: "utf8" }).trim(); // "workerd 2026-12-01"
const COMPATIBILITY_DATE = option("compatibility-date") ?? VERSION.split(" ")[1];
const COMPATIBILITY_FLAGS = (option("compatibility-flags") ?? "").split(",").filter(Boolean);
const REQUESTS = 20;
const MODES = ["isolate", "request"]; // where worker.mjs keeps its runtime
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const DOC = "docs/runtimes.md";
// What workerd says when one request's I/O object is used from another ("Cannot perform I/O on
// behalf of a different request"), or when a request waited for a promise that only another
// request would settle and was cancelled for it ("A promise was resolved or rejected from a
// different request context"). Not its "dropped queued cross-context actions" note: the
// OpenTelemetry SDK's own OTLP exporter, kept for an isolate, leaves it once without relaytrace too.
const CROSS_REQUEST = /different request/i;
const results = [];

/** OTLP/HTTP protobuf bodies (the OtelExporter's default protocol), decoded with the official schema. */
const EXPORT_TRACES = (() => {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => join(ROOT, "test/fixtures/otlp-proto", target);
  root.loadSync("opentelemetry/proto/collector/trace/v1/trace_service.proto");
  return root.lookupType("opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest");
})();

/** An OTLP traces body as an object, JSON or protobuf by its content type (ids stay as they came, hex or base64). */
function decodeTraces(contentType, bytes) {
  if (!String(contentType).includes("protobuf")) return JSON.parse(bytes.toString("utf8"));
  return EXPORT_TRACES.toObject(EXPORT_TRACES.decode(bytes), { bytes: String, longs: String });
}

async function check(name, fn) {
  try {
    await fn();
    results.push(true);
    console.log(`ok   ${name}`);
  } catch (error) {
    results.push(false);
    console.log(`FAIL ${name}: ${error && error.stack ? error.stack : error}`);
  }
}

function assert(condition, message) {
  if (!condition) throw new Error(message);
}

/**
 * A loopback OTLP/HTTP JSON and ATOF receiver with one inbox per Worker: POST /NAME/v1/traces,
 * /NAME/v1/logs (JSON), /NAME/v1/metrics (JSON) and /NAME/atof fill NAME's, GET /NAME/names lists
 * the names of its spans. `until(test, done)`
 * resolves once `test()` passes, and fails once `done` settles first (workerd exited, or the deadline).
 */
async function startReceiver() {
  const inboxes = new Map();
  const inbox = (name) => {
    if (!inboxes.has(name)) inboxes.set(name, { spans: [], logs: [], metrics: [], atof: [], errors: [] });
    return inboxes.get(name);
  };
  const waiters = [];
  const server = createServer((req, res) => {
    const [, name, ...rest] = req.url.split("/");
    const path = rest.join("/");
    if (path === "names") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(inbox(name).spans.map((s) => s.name)));
      return;
    }
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const bytes = Buffer.concat(chunks);
      try {
        if (path === "v1/traces") {
          const body = decodeTraces(req.headers["content-type"], bytes);
          for (const rs of body.resourceSpans ?? []) for (const ss of rs.scopeSpans ?? []) inbox(name).spans.push(...(ss.spans ?? []));
        } else if (path === "v1/logs") {
          for (const rl of JSON.parse(bytes.toString("utf8")).resourceLogs ?? []) {
            for (const sl of rl.scopeLogs ?? []) inbox(name).logs.push(...(sl.logRecords ?? []));
          }
        } else if (path === "v1/metrics") {
          for (const rm of JSON.parse(bytes.toString("utf8")).resourceMetrics ?? []) {
            for (const sm of rm.scopeMetrics ?? []) inbox(name).metrics.push(...(sm.metrics ?? []));
          }
        } else if (path === "atof") {
          for (const line of bytes.toString("utf8").split("\n")) if (line) inbox(name).atof.push(JSON.parse(line));
        }
        res.writeHead(200, { "content-type": "application/json" });
        res.end("{}");
      } catch (error) {
        inbox(name).errors.push(String(error));
        res.writeHead(400, { "content-type": "application/json" });
        res.end("{}");
      }
      for (const waiter of waiters.splice(0)) waiter();
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const until = async (test, done, what) => {
    let finished = false;
    void done.then(() => (finished = true));
    while (!test()) {
      const errors = [...inboxes].flatMap(([name, box]) => box.errors.map((e) => `${name}: ${e}`));
      if (finished) throw new Error(`gave up waiting: ${what()}${errors.length > 0 ? `; bodies refused: ${errors.join("; ")}` : ""}`);
      await Promise.race([new Promise((resolve) => waiters.push(resolve)), done]);
    }
  };
  return { url: `http://127.0.0.1:${server.address().port}`, inbox, until, close: () => new Promise((r) => server.close(r)) };
}

/** The blocks of docs/runtimes.md marked `<!-- readme-test: worker -->`, with their lines. */
async function documentedWorkers() {
  const lines = (await readFile(join(ROOT, DOC), "utf8")).split("\n");
  const blocks = [];
  for (let i = 1; i < lines.length; i++) {
    if (lines[i - 1] !== "<!-- readme-test: worker -->" || !/^```ts\s*$/.test(lines[i])) continue;
    const start = i + 1;
    while (++i < lines.length && lines[i] !== "```");
    blocks.push({ line: start, code: lines.slice(start, i).join("\n") });
  }
  return blocks;
}

async function bundle(dir, entry, outfile) {
  await build({
    entryPoints: [entry],
    outfile: join(dir, outfile),
    bundle: true,
    format: "esm",
    platform: "browser",
    conditions: ["workerd", "worker", "browser"],
    external: ["node:*"],
    nodePaths: [join(dir, "node_modules")],
    logLevel: "error",
  });
}

/** workerd's config: one service and one socket per Worker. */
function config(workers) {
  const text = (bindings) => Object.entries(bindings).map(([name, value]) => `(name = "${name}", text = "${value}")`);
  const flagList = COMPATIBILITY_FLAGS.map((f) => `"${f}"`).join(", ");
  return `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    ${workers.map((w) => `(name = "${w.name}", worker = .${w.name.replace(/\W/g, "")})`).join(",\n    ")},
    (name = "loopback", network = (allow = ["local"])),
  ],
  sockets = [
    ${workers.map((w) => `(name = "${w.name}", address = "127.0.0.1:0", http = (), service = "${w.name}")`).join(",\n    ")},
  ],
);
${workers
  .map(
    (w) => `const ${w.name.replace(/\W/g, "")} :Workerd.Worker = (
  modules = [(name = "worker.js", esModule = embed "${w.file}")],
  compatibilityDate = "${COMPATIBILITY_DATE}",
  compatibilityFlags = [${flagList}],
  bindings = [${text(w.bindings).join(", ")}],
  globalOutbound = "loopback",
);`,
  )
  .join("\n")}
`;
}

/** Starts workerd; resolves with each socket's port (from --control-fd) and a promise of its exit. */
async function serve(dir, names) {
  const child = spawn(WORKERD, ["serve", join(dir, "config.capnp"), "--control-fd=3"], { stdio: ["ignore", "inherit", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (c) => (stderr += c));
  const exited = once(child, "exit").then(([code]) => code);
  process.once("exit", () => child.kill("SIGKILL")); // never left running, whatever ends this script
  let control = "";
  const ports = await new Promise((resolve, reject) => {
    child.stdio[3].on("data", (chunk) => {
      control += chunk;
      const listening = control
        .split("\n")
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l))
        .filter((e) => e.event === "listen");
      if (names.every((n) => listening.some((e) => e.socket === n))) {
        resolve(Object.fromEntries(listening.map((e) => [e.socket, e.port])));
      }
    });
    void exited.then((code) => reject(new Error(`workerd exited (${code}) before listening: ${stderr}`)));
  });
  return { ports, exited, stderr: () => stderr, stop: () => child.kill("SIGTERM") };
}

async function get(url) {
  const res = await fetch(url);
  const text = await res.text();
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: res.status, body };
}

/** `count` lookups, one after another or all at once; each must answer 200 in its own scope. */
async function lookups(base, from, count, atOnce) {
  const one = (i) => get(`${base}/lookup?id=${i}`);
  const ids = Array.from({ length: count }, (_, k) => from + k);
  const replies = [];
  if (atOnce) replies.push(...(await Promise.all(ids.map(one))));
  else for (const i of ids) replies.push(await one(i));
  for (const [k, reply] of replies.entries()) {
    assert(reply.status === 200, `request ${ids[k]}: ${reply.status} ${JSON.stringify(reply.body)}`);
    assert(reply.body.found === String(ids[k]), `request ${ids[k]}: ${JSON.stringify(reply.body)}`);
  }
  assert(new Set(replies.map((r) => r.body.scope)).size === count, "each request has its own scope");
}

const dir = await mkdtemp(join(tmpdir(), "relaytrace-workers-"));
const receiver = await startReceiver();
const model = await startScriptedProvider({
  model: "gpt-4.1-mini",
  // One scripted run per mode: a tool call, then the answer.
  turns: MODES.flatMap(() => [{ toolCalls: [{ id: "call_1", name: "add", arguments: { a: 3, b: 4 } }] }, { text: "3 + 4 = 7" }]),
});
let worker;
try {
  // The package imports itself by name, as an app would: "relaytrace" is this repository, found as
  // an installed package (a node_modules link to it), so its package.json "exports" and "browser"
  // fields decide what is bundled: the built dist/, with the browser build's replacements.
  await mkdir(join(dir, "node_modules"), { recursive: true });
  await symlink(ROOT.replace(/\/$/, ""), join(dir, "node_modules", "relaytrace"), "dir");
  const workers = [];
  await bundle(dir, join(ROOT, "test/runtimes/worker/worker.mjs"), "worker.js");
  for (const mode of MODES) {
    const bindings = { RUNTIME: mode, NAME: mode, OTLP_URL: receiver.url, OTLP_PROTOCOL: "http/json", MODEL_URL: model.url };
    workers.push({ name: mode, file: "worker.js", bindings });
  }
  await bundle(dir, join(ROOT, "test/runtimes/worker/default-worker.mjs"), "default-worker.js");
  workers.push({ name: "default", file: "default-worker.js", bindings: { NAME: "default", OTLP_URL: receiver.url } });
  const docs = await documentedWorkers();
  for (const block of docs) {
    const name = `doc-${block.line}`;
    await writeFile(join(dir, `${name}.ts`), `${block.code}\n`);
    await bundle(dir, join(dir, `${name}.ts`), `${name}.js`);
    workers.push({ name, file: `${name}.js`, bindings: { OTLP_ENDPOINT: `${receiver.url}/${name}/v1/traces` }, block });
  }
  await writeFile(join(dir, "config.capnp"), config(workers));
  worker = await serve(
    dir,
    workers.map((w) => w.name),
  );
  const base = (name) => `http://127.0.0.1:${worker.ports[name]}`;
  // The deadline only bounds a broken run; every wait below ends on the condition it waits for.
  const deadline = Promise.race([worker.exited, new Promise((resolve) => setTimeout(resolve, 30_000).unref())]);

  for (const mode of MODES) {
    const { spans, atof } = receiver.inbox(mode);
    const label = `one runtime per ${mode}`;
    await check(`${label}: ${REQUESTS} requests one after another answer, each in its own scope`, () =>
      lookups(base(mode), 0, REQUESTS, false),
    );
    await check(`${label}: ${REQUESTS} requests at once answer, each in its own scope`, () =>
      lookups(base(mode), REQUESTS, REQUESTS, true),
    );

    const traces = 2 * REQUESTS;
    await check(`${label}: the receiver gets all ${traces} traces through ctx.waitUntil(runtime.forceFlush())`, async () => {
      const agents = () => spans.filter((s) => s.name === "agent");
      const steps = () => spans.filter((s) => s.name === "step");
      await receiver.until(
        () => agents().length >= traces && steps().length >= traces,
        deadline,
        () => `${agents().length} agent and ${steps().length} step spans`,
      );
      assert(agents().length === traces, `agent spans: ${agents().length}`);
      assert(new Set(agents().map((s) => s.traceId)).size === traces, "one trace per request");
      for (const agent of agents()) {
        assert(!agent.parentSpanId, `agent span ${agent.spanId} is a root`);
        for (const name of ["lookup", "step"]) {
          const children = spans.filter((s) => s.name === name && s.parentSpanId === agent.spanId);
          assert(children.length === 1, `trace ${agent.traceId}: ${children.length} ${name} spans under agent`);
          assert(children[0].traceId === agent.traceId, `${name} span in its agent's trace`);
        }
      }
    });

    await check(`${label}: the ATOF stream exporter POSTs every request's events over fetch`, async () => {
      const ends = () => atof.filter((e) => e.kind === "scope" && e.scope_category === "end" && e.name === "agent");
      await receiver.until(
        () => ends().length >= traces,
        deadline,
        () => `${ends().length} agent end events`,
      );
      assert(ends().length === traces, `agent end events: ${ends().length}`);
    });

    await check(`${label}: forceFlush awaited in the Worker resolves only after the receiver holds the spans`, async () => {
      for (const id of [1, 2]) {
        const { status, body } = await get(`${base(mode)}/flushed?id=${id}`);
        assert(status === 200 && body.received === true, `request ${id}: status ${status}: ${JSON.stringify(body)}`);
        assert(body.diagnostics.length === 0, `diagnostics: ${JSON.stringify(body.diagnostics)}`);
      }
    });

    await check(`${label}: the agent loop calls a loopback model through fetch and runs its tool`, async () => {
      const { status, body } = await get(`${base(mode)}/agent`);
      assert(status === 200, `status ${status}: ${JSON.stringify(body)}`);
      assert(body.status === "done" && body.text === "3 + 4 = 7", JSON.stringify(body));
      assert(JSON.stringify(body.tools) === JSON.stringify([["add", "7"]]), JSON.stringify(body.tools));
      await receiver.until(
        () => spans.some((s) => s.name === "add"),
        deadline,
        () => "no add span",
      );
    });

    const { logs, metrics } = receiver.inbox(mode);
    await check(
      `${label}: opted in with relaytrace/exporters/signals, its marks arrive as log records and its model calls' GenAI metrics as metrics`,
      async () => {
        await receiver.until(
          () => logs.some((r) => r.eventName === "checkpoint") && metrics.some((m) => m.name === "gen_ai.client.operation.duration"),
          deadline,
          () => `${logs.length} log records, metrics ${JSON.stringify(metrics.map((m) => m.name))}`,
        );
      },
    );
  }

  await check(
    "a Worker without the opt-in imports: its call is unpriced and logs and metrics are off, each with a diagnostic naming the import; its spans arrive",
    async () => {
      const { status, body } = await get(base("default"));
      assert(status === 200, `status ${status}: ${JSON.stringify(body)}`);
      assert(JSON.stringify(body.costs) === "[null]", `costs: ${JSON.stringify(body.costs)}`);
      const byCode = new Map(body.diagnostics.map((d) => [d.code, d]));
      const unpriced = byCode.get("llm.price_table_unavailable");
      assert(
        unpriced?.count === 1 && unpriced.message.includes('add import "relaytrace/prices"'),
        `diagnostics: ${JSON.stringify(body.diagnostics)}`,
      );
      const unloaded = byCode.get("otel.load_failed");
      assert(
        unloaded?.count === 2 && unloaded.message.includes('add import "relaytrace/exporters/signals"'),
        `diagnostics: ${JSON.stringify(body.diagnostics)}`,
      );
      const { spans } = receiver.inbox("default");
      const names = spans.map((s) => s.name).sort();
      assert(JSON.stringify(names) === JSON.stringify(["chat gpt-4.1-mini", "invoke_agent answer"]), `spans: ${JSON.stringify(names)}`);
    },
  );

  for (const { name, block } of workers.filter((w) => w.block)) {
    const { spans } = receiver.inbox(name);
    await check(`${DOC}:${block.line} runs as written: ${REQUESTS} requests answer and ${REQUESTS} traces arrive`, async () => {
      for (let i = 0; i < REQUESTS; i++) {
        const { status, body } = await get(`${base(name)}/?city=city-${i}`);
        assert(status === 200 && body.forecast === `sunny in city-${i}`, `request ${i}: status ${status}: ${JSON.stringify(body)}`);
      }
      const roots = () => spans.filter((s) => s.name === "forecast");
      await receiver.until(
        () => roots().length >= REQUESTS,
        deadline,
        () => `${roots().length} forecast spans`,
      );
      assert(roots().length === REQUESTS, `forecast spans: ${roots().length}`);
      for (const root of roots()) {
        const tools = spans.filter((s) => s.parentSpanId === root.spanId && s.traceId === root.traceId);
        assert(tools.length === 1, `trace ${root.traceId}: ${tools.length} spans under forecast`);
      }
    });
  }
  await check(`${DOC} has Worker blocks to run`, () => assert(docs.length >= 1, `no block marked readme-test: worker in ${DOC}`));

  await check("workerd logged no I/O object used across requests", () => {
    const lines = worker.stderr().split("\n");
    const crossed = lines.filter((l) => CROSS_REQUEST.test(l));
    assert(crossed.length === 0, crossed.join("\n"));
  });

  for (const mode of MODES) {
    const { atof } = receiver.inbox(mode);
    await check(
      `one runtime per ${mode}: the agent run's model calls are priced from the bundled table inside the Worker, and its end carries their total`,
      async () => {
        const runEnd = () =>
          atof.find((e) => e.kind === "scope" && e.scope_category === "end" && e.category === "agent" && e.category_profile?.total_cost);
        await receiver.until(
          () => runEnd() !== undefined,
          deadline,
          () => "no agent end with a total cost",
        );
        const llmEnds = atof.filter((e) => e.kind === "scope" && e.scope_category === "end" && e.category === "llm");
        // gpt-4.1-mini at $0.40 / $1.60 per million tokens; the scripted provider reports 10 in, 5 out per call.
        const costs = llmEnds.map((e) => e.category_profile?.cost?.total);
        assert(JSON.stringify(costs) === JSON.stringify([0.000012, 0.000012]), `llm costs: ${JSON.stringify(costs)}`);
        const total = runEnd().category_profile.total_cost;
        assert(total?.total === 0.000024 && total.priced_calls === 2, `agent total: ${JSON.stringify(total)}`);
      },
    );
  }
} finally {
  worker?.stop();
  if (worker) await worker.exited;
  await model.close();
  await receiver.close();
  await rm(dir, { recursive: true, force: true });
}

const failed = results.filter((ok) => !ok).length;
console.log(`workers suite on ${VERSION}, compatibility date ${COMPATIBILITY_DATE}${COMPATIBILITY_FLAGS.map((f) => `, ${f}`).join("")}`);
console.log(`${results.length - failed} passed, ${failed} failed`);
if (failed > 0 && worker) console.log(worker.stderr());
process.exitCode = failed === 0 ? 0 : 1;
