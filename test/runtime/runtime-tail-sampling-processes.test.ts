// Tail sampling across processes: a run halted in one child process and resumed in another is one
// trace, and both processes, each writing its own ATOF file, keep their part or drop it alike.
// The children run the BUILT package (`npm run build` first, as `npm test` does).
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AtofEvent } from "../../src/events/types.js";
import type { SamplingOptions } from "../../src/runtime/types.js";
import { openaiReply, startProvider } from "../support/agent-provider-server.js";
import { startNode } from "../support/child-process.js";
import { spansOf, startOtlpReceiver } from "../support/otlp.js";
import { DROPPED_ROOT_RANDOM, KEPT_ROOT_RANDOM, rootIdEndingWith } from "../support/sampling.js";

const dist = (p: string) => JSON.stringify(pathToFileURL(join(process.cwd(), "dist", p)).href);

// argv: mode (halt | resume), provider URL, ATOF path, state file, sampling JSON, the uuid of this process's agent scope.
const PROGRAM = `
import { readFile, writeFile } from "node:fs/promises";
import { createClient, createRuntime, createToolkit, defineTool, pending, uuidv7 } from ${dist("src/index.js")};
import { AtofExporter, OtelExporter } from ${dist("exporters/index.js")};

const [mode, modelUrl, atofPath, statePath, sampling, agentUuid] = process.argv.slice(2);
const ids = [agentUuid];
const runtime = createRuntime({ sampling: JSON.parse(sampling), idGenerator: () => ids.shift() ?? uuidv7() });
new AtofExporter({ type: "file", path: atofPath }).register(runtime);
if (mode === "exit" || mode === "natural") {
  // A trace whose root never ends: process.exit() now, or the end of the program without shutdown()
  // (the URL is then an OTLP receiver's: its tool span can only leave before the process ends).
  if (mode === "natural") new OtelExporter({ projection: "full", endpoint: modelUrl + "/v1/traces" }).register(runtime);
  runtime.pushScope("never-ended", { category: "agent" });
  await runtime.executeTool("lookup", {}, () => ({ result: "ok" }));
  runtime.mark("inside");
  if (mode === "exit") process.exit(0);
} else {
const approve = defineTool({
  name: "approve",
  description: "needs a human",
  execute: (_args, ctx) => (ctx.answer ? "approved" : pending({ kind: "approval", prompt: "may I charge?" })),
});
const toolkit = await createToolkit({ builtins: false, tools: [approve] });
const client = createClient({ baseUrl: modelUrl, style: "openai", model: "m", apiKey: "k", agentName: "billing-agent", runtime });
let status;
if (mode === "halt") {
  const halted = await client.run("charge the card", { toolkit });
  status = halted.status;
  await writeFile(statePath, JSON.stringify({ messages: halted.messages, pending: halted.pending, halt: halted.halt }));
} else {
  const state = JSON.parse(await readFile(statePath, "utf8"));
  const answer = { id: state.pending.id, ok: true };
  const resumed = await client.runWithAnswer({ toolkit, history: state.messages, pending: state.pending, answer, halt: state.halt });
  status = resumed.status;
}
await runtime.shutdown();
console.log(JSON.stringify({ status, dropped: runtime.diagnostics().find((d) => d.code === "sampling.dropped_traces")?.count ?? 0 }));
}
`;

let dir: string;
let program: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "relaytrace-sampling-procs-"));
  program = join(dir, "program.mjs");
  await writeFile(program, PROGRAM);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function child(args: string[]): Promise<{ status: string; dropped: number }> {
  const proc = startNode(program, args);
  const { code } = await proc.exited;
  expect(code, proc.stderr()).toBe(0);
  return JSON.parse(proc.stdout().trim().split("\n").pop() || "{}") as { status: string; dropped: number };
}

/** The events of a file but the sampling metric. */
async function traceEvents(path: string): Promise<AtofEvent[]> {
  const text = await readFile(path, "utf8");
  return text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as AtofEvent)
    .filter((e) => e.name !== "relaytrace.sampling.dropped_traces");
}

/** Halts a run in one child process and resumes it in another; `first` and `second` are the agent scopes' uuids. */
async function haltAndResume(name: string, sampling: SamplingOptions, first: string, second: string) {
  const provider = await startProvider([openaiReply(null, [{ id: "c1", name: "approve" }]), openaiReply("charged")]);
  try {
    const files = {
      halted: join(dir, `${name}-halted.jsonl`),
      resumed: join(dir, `${name}-resumed.jsonl`),
      state: join(dir, `${name}.json`),
    };
    const json = JSON.stringify(sampling);
    const halted = await child(["halt", provider.url, files.halted, files.state, json, first]);
    const resumed = await child(["resume", provider.url, files.resumed, files.state, json, second]);
    expect([halted.status, resumed.status]).toEqual(["pending", "done"]);
    return { halted, resumed, haltedEvents: await traceEvents(files.halted), resumedEvents: await traceEvents(files.resumed) };
  } finally {
    await provider.close();
  }
}

const KEPT_AT_HALF = rootIdEndingWith(KEPT_ROOT_RANDOM);
const DROPPED_AT_HALF = rootIdEndingWith(DROPPED_ROOT_RANDOM);

describe("two processes holding parts of one trace decide alike", () => {
  it("kept: the halted part and the resumed part are both written whole, the resumed one under the first one's root", async () => {
    // The resumed agent scope's own uuid would be dropped at this ratio: the trace id decides, not it.
    const run = await haltAndResume("kept", { ratio: 0.5 }, KEPT_AT_HALF, DROPPED_AT_HALF);
    expect(run.haltedEvents.map((e) => `${e.kind === "mark" ? "mark" : e.scope_category}:${e.name}`)).toEqual([
      "start:billing-agent",
      "start:openai.chat_completions",
      "end:openai.chat_completions",
      "start:approve",
      "end:approve",
      "mark:tool.pending",
      "end:billing-agent",
    ]);
    expect(run.haltedEvents[0]!.uuid).toBe(KEPT_AT_HALF);
    const resumedRoot = run.resumedEvents[0]!;
    expect(resumedRoot).toMatchObject({ name: "billing-agent", uuid: DROPPED_AT_HALF, parent_uuid: KEPT_AT_HALF });
    expect(run.resumedEvents.filter((e) => e.kind === "scope" && e.scope_category === "end").map((e) => e.name)).toEqual([
      "approve",
      "openai.chat_completions",
      "billing-agent",
    ]);
    expect([run.halted.dropped, run.resumed.dropped]).toEqual([0, 0]);
  });

  it("dropped: neither process writes any of its part, and each counts one dropped trace", async () => {
    // The resumed agent scope's own uuid would be kept at this ratio: the trace id decides, not it.
    const run = await haltAndResume("dropped", { ratio: 0.5 }, DROPPED_AT_HALF, KEPT_AT_HALF);
    expect(run.haltedEvents).toEqual([]);
    expect(run.resumedEvents).toEqual([]);
    expect([run.halted.dropped, run.resumed.dropped]).toEqual([1, 1]);
  });

  it("keep.suspended keeps both parts at ratio 0: the halted one has the suspended call, the resumed one answers it", async () => {
    const run = await haltAndResume(
      "suspended",
      { ratio: 0, keep: { suspended: true } },
      DROPPED_AT_HALF,
      DROPPED_AT_HALF.replace(/1$/, "3"),
    );
    expect(run.haltedEvents.map((e) => e.name)).toContain("tool.pending");
    expect(run.resumedEvents[0]).toMatchObject({ name: "billing-agent", parent_uuid: DROPPED_AT_HALF });
    // The agent, approve and LLM scopes, start and end.
    expect(run.resumedEvents).toHaveLength(6);
    expect([run.halted.dropped, run.resumed.dropped]).toEqual([0, 0]);
  });
});

describe("a process that ends with a trace still held", () => {
  it("delivers it on process.exit(): the ATOF file has every event", async () => {
    const file = join(dir, "exit.jsonl");
    await child(["exit", "http://127.0.0.1:9", file, join(dir, "unused.json"), JSON.stringify({ ratio: 1 }), KEPT_AT_HALF]);
    expect((await traceEvents(file)).map((e) => e.name)).toEqual(["never-ended", "lookup", "lookup", "inside"]);
  });

  it("decides it when the program ends without shutdown(), while exporters can still send: the finished tool span reaches the collector", async () => {
    const receiver = await startOtlpReceiver();
    try {
      const file = join(dir, "natural.jsonl");
      await child(["natural", receiver.url, file, join(dir, "unused.json"), JSON.stringify({ ratio: 1 }), KEPT_AT_HALF]);
      const spans = receiver.received.filter((r) => r.signal === "traces").flatMap((r) => spansOf(r.body));
      expect(spans.map((s) => s["name"])).toContain("lookup");
      expect((await traceEvents(file)).map((e) => e.name)).toEqual(["never-ended", "lookup", "lookup", "inside"]);
    } finally {
      await receiver.close();
    }
  });
});
