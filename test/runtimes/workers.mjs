// relaytrace on Cloudflare Workers: bundles test/runtimes/worker/worker.mjs the way wrangler does
// (esbuild, the "workerd", "worker" and "browser" conditions, node:* left to the runtime), serves
// it with workerd (outbound network limited to loopback), drives 20 traced requests and one agent
// run, and checks that a loopback OTLP receiver got every trace, parent-linked, and every ATOF
// event through the forceFlush each request hands to ctx.waitUntil. Bundles the BUILT package (npm run build first;
// the Worker imports "relaytrace" by name, which resolves to dist/ through package.json "exports"):
//   node test/runtimes/workers.mjs "$(bash test/interop/tools/install-js-runtime.sh workerd)"
// Prints one line per check and a closing "N passed, N failed" line; exits 1 on any failure.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:http";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { startScriptedProvider } from "../../dist/exporters/testing/index.js";

const WORKERD = process.argv[2];
const REQUESTS = 20;
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const results = [];

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
 * A loopback OTLP/HTTP JSON receiver; GET /names lists the names of the spans it holds, and
 * `until(test)` resolves once the spans received pass `test`.
 */
async function startReceiver() {
  const spans = [];
  const atof = [];
  const waiters = [];
  const server = createServer((req, res) => {
    if (req.url === "/names") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(spans.map((s) => s.name)));
      return;
    }
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      if (req.url === "/v1/traces") {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        for (const rs of body.resourceSpans ?? []) for (const ss of rs.scopeSpans ?? []) spans.push(...(ss.spans ?? []));
      } else if (req.url === "/atof") {
        for (const line of Buffer.concat(chunks).toString("utf8").split("\n")) if (line) atof.push(JSON.parse(line));
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end("{}");
      for (const waiter of waiters.splice(0)) waiter();
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  /** Waits for the spans to pass `test`, or fails once `done` settles first (workerd exited, or the deadline). */
  const until = async (test, done) => {
    let finished = false;
    void done.then(() => (finished = true));
    while (!test(spans)) {
      if (finished) throw new Error(`the receiver has ${spans.length} spans and ${atof.length} ATOF events`);
      await Promise.race([new Promise((resolve) => waiters.push(resolve)), done]);
    }
  };
  return { url: `http://127.0.0.1:${server.address().port}`, spans, atof, until, close: () => new Promise((r) => server.close(r)) };
}

async function bundle(dir) {
  // The package imports itself by name, as an app would: "relaytrace" is this repository, found as
  // an installed package (a node_modules link to it), so its package.json "exports" and "browser"
  // fields decide what is bundled: the built dist/, with the browser build's replacements.
  const modules = join(dir, "node_modules");
  await mkdir(modules, { recursive: true });
  await symlink(ROOT.replace(/\/$/, ""), join(modules, "relaytrace"), "dir");
  await build({
    entryPoints: [join(ROOT, "test/runtimes/worker/worker.mjs")],
    outfile: join(dir, "worker.js"),
    bundle: true,
    format: "esm",
    platform: "browser",
    conditions: ["workerd", "worker", "browser"],
    external: ["node:*"],
    nodePaths: [modules],
    logLevel: "error",
  });
}

function config(bindings) {
  const text = Object.entries(bindings).map(([name, value]) => `(name = "${name}", text = "${value}")`);
  return `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .worker),
    (name = "loopback", network = (allow = ["local"])),
  ],
  sockets = [(name = "http", address = "127.0.0.1:0", http = (), service = "main")],
);
const worker :Workerd.Worker = (
  modules = [(name = "worker.js", esModule = embed "worker.js")],
  compatibilityDate = "2026-11-01",
  bindings = [${text.join(", ")}],
  globalOutbound = "loopback",
);
`;
}

/** Starts workerd; resolves with its port (from --control-fd) and a promise of its exit. */
async function serve(dir) {
  const child = spawn(WORKERD, ["serve", join(dir, "config.capnp"), "--control-fd=3"], { stdio: ["ignore", "inherit", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (c) => (stderr += c));
  const exited = once(child, "exit").then(([code]) => code);
  let control = "";
  const port = await new Promise((resolve, reject) => {
    child.stdio[3].on("data", (chunk) => {
      control += chunk;
      const listen = control
        .split("\n")
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l))
        .find((e) => e.event === "listen" && e.socket === "http");
      if (listen) resolve(listen.port);
    });
    void exited.then((code) => reject(new Error(`workerd exited (${code}) before listening: ${stderr}`)));
  });
  return { port, exited, stderr: () => stderr, stop: () => child.kill("SIGTERM") };
}

const dir = await mkdtemp(join(tmpdir(), "relaytrace-workers-"));
const receiver = await startReceiver();
const model = await startScriptedProvider({
  model: "gpt-4.1-mini",
  turns: [{ toolCalls: [{ id: "call_1", name: "add", arguments: { a: 3, b: 4 } }] }, { text: "3 + 4 = 7" }],
});
let worker;
try {
  await bundle(dir);
  await writeFile(join(dir, "config.capnp"), config({ OTLP_URL: receiver.url, OTLP_PROTOCOL: "http/json", MODEL_URL: model.url }));
  worker = await serve(dir);
  const base = `http://127.0.0.1:${worker.port}`;
  // The deadline only bounds a broken run; every wait below ends on the condition it waits for.
  const deadline = Promise.race([worker.exited, new Promise((resolve) => setTimeout(resolve, 30_000).unref())]);

  await check(`${REQUESTS} concurrent traced requests answer, each in its own scope`, async () => {
    const replies = await Promise.all(
      Array.from({ length: REQUESTS }, async (_, i) => {
        const res = await fetch(`${base}/lookup?id=${i}`);
        return { status: res.status, body: await res.json() };
      }),
    );
    for (const [i, reply] of replies.entries()) {
      assert(reply.status === 200, `request ${i}: ${reply.status} ${JSON.stringify(reply.body)}`);
      assert(reply.body.found === String(i), `request ${i}: ${JSON.stringify(reply.body)}`);
    }
    assert(new Set(replies.map((r) => r.body.scope)).size === REQUESTS, "each request has its own scope");
  });

  await check(`the receiver gets all ${REQUESTS} traces through ctx.waitUntil(runtime.forceFlush())`, async () => {
    const agents = (spans) => spans.filter((s) => s.name === "agent");
    await receiver.until(
      (spans) => agents(spans).length >= REQUESTS && spans.filter((s) => s.name === "step").length >= REQUESTS,
      deadline,
    );
    const spans = receiver.spans;
    assert(agents(spans).length === REQUESTS, `agent spans: ${agents(spans).length}`);
    assert(new Set(agents(spans).map((s) => s.traceId)).size === REQUESTS, "one trace per request");
    for (const agent of agents(spans)) {
      assert(!agent.parentSpanId, `agent span ${agent.spanId} is a root`);
      for (const name of ["lookup", "step"]) {
        const children = spans.filter((s) => s.name === name && s.parentSpanId === agent.spanId);
        assert(children.length === 1, `trace ${agent.traceId}: ${children.length} ${name} spans under agent`);
        assert(children[0].traceId === agent.traceId, `${name} span in its agent's trace`);
      }
    }
  });

  await check(`the ATOF stream exporter POSTs every request's events over fetch`, async () => {
    const ends = () => receiver.atof.filter((e) => e.kind === "scope" && e.scope_category === "end" && e.name === "agent");
    await receiver.until(() => ends().length >= REQUESTS, deadline);
    assert(ends().length === REQUESTS, `agent end events: ${ends().length}`);
  });

  await check("forceFlush awaited in the Worker resolves only after the receiver holds the spans", async () => {
    const res = await fetch(`${base}/flushed?id=1`);
    const body = await res.json();
    assert(res.status === 200 && body.received === true, `status ${res.status}: ${JSON.stringify(body)}`);
    assert(body.diagnostics.length === 0, `diagnostics: ${JSON.stringify(body.diagnostics)}`);
  });

  await check("the agent loop calls a loopback model through fetch and runs its tool", async () => {
    const res = await fetch(`${base}/agent`);
    const body = await res.json();
    assert(res.status === 200, `status ${res.status}: ${JSON.stringify(body)}`);
    assert(body.status === "done" && body.text === "3 + 4 = 7", JSON.stringify(body));
    assert(JSON.stringify(body.tools) === JSON.stringify([["add", "7"]]), JSON.stringify(body.tools));
    await receiver.until((spans) => spans.some((s) => s.name === "add"), deadline);
  });

  await check(
    "the agent run's model calls are priced from the bundled table inside the Worker, and its end carries their total",
    async () => {
      const runEnd = () =>
        receiver.atof.find((e) => e.kind === "scope" && e.scope_category === "end" && e.category === "agent" && e.category_profile);
      await receiver.until(() => runEnd() !== undefined, deadline);
      const llmEnds = receiver.atof.filter((e) => e.kind === "scope" && e.scope_category === "end" && e.category === "llm");
      // gpt-4.1-mini at $0.40 / $1.60 per million tokens; the scripted provider reports 10 in, 5 out per call.
      const costs = llmEnds.map((e) => e.category_profile?.cost?.total);
      assert(JSON.stringify(costs) === JSON.stringify([0.000012, 0.000012]), `llm costs: ${JSON.stringify(costs)}`);
      const total = runEnd().category_profile.total_cost;
      assert(total?.total === 0.000024 && total.priced_calls === 2, `agent total: ${JSON.stringify(total)}`);
    },
  );
} finally {
  worker?.stop();
  if (worker) await worker.exited;
  await model.close();
  await receiver.close();
  await rm(dir, { recursive: true, force: true });
}

const failed = results.filter((ok) => !ok).length;
console.log(`workers suite on workerd`);
console.log(`${results.length - failed} passed, ${failed} failed`);
if (failed > 0 && worker) console.log(worker.stderr());
process.exitCode = failed === 0 ? 0 : 1;
