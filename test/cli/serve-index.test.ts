// The dashboard's index of a directory, through its HTTP API: one summary per run as the page
// lists it, rotated files read as one input, lines followed as they are written (a torn last
// line waits for its end), corrupt lines counted and named, a run read back for its waterfall
// and two runs compared as `relaytrace diff` compares them. Real runs of the agent loop, real
// files; each pass over the files is forced (`index.poll()`), never waited for.
import { appendFile, mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { spanIdFromUuid, traceIdFromUuid } from "../../exporters/otel/ids.js";
import { startDashboard, type DashboardServer } from "../../src/cli/dashboard/server/dashboard-server.js";
import type { CompareAnswer, RunsAnswer, RunSummary, TraceAnswer } from "../../src/cli/dashboard/model.js";
import { diffRuns } from "../../src/diff/index.js";
import { serializeEvent } from "../../src/events/atof-serialize.js";
import { parseTimestamp } from "../../src/events/timestamp.js";
import type { AtofEvent } from "../../src/events/types.js";
import { appendRuns, recordAgentRun } from "../support/dashboard-runs.js";
import { useScratchTmpdir } from "../support/scratch-tmpdir.js";

const scratch = useScratchTmpdir("relaytrace-serve-index-");
const servers: DashboardServer[] = [];
afterEach(async () => {
  while (servers.length > 0) await servers.pop()!.close();
});

let dirs = 0;
async function freshDir(): Promise<string> {
  const dir = join(scratch.dir, `d${++dirs}`);
  await mkdir(dir);
  return dir;
}

/** A dashboard whose own polling never fires during a test: each test forces its passes. */
async function serve(dir: string): Promise<DashboardServer> {
  const server = await startDashboard({ dir, pollMs: 3_600_000 });
  servers.push(server);
  await server.index.poll();
  return server;
}

async function json<T>(server: DashboardServer, path: string): Promise<T> {
  const response = await fetch(server.url + path);
  expect(response.status, path).toBe(200);
  return (await response.json()) as T;
}

const lines = (events: readonly AtofEvent[]) => events.map((e) => serializeEvent(e) + "\n");
const rootOf = (events: readonly AtofEvent[]) => events.find((e) => e.kind === "scope" && e.category === "agent")!;
const runId = (events: readonly AtofEvent[]) => traceIdFromUuid(rootOf(events).uuid);
const byId = (answer: RunsAnswer) => new Map(answer.runs.map((r) => [r.id, r]));

describe("the dashboard's index", () => {
  it("sums up each run: name, session, user, tags, status, calls, tokens, cost and evaluations", async () => {
    const dir = await freshDir();
    const ok = await recordAgentRun({ sessionId: "s-1", userId: "ana", tags: ["prod"], evaluation: { name: "relevance", score: 0.9 } });
    const failed = await recordAgentRun({ sessionId: "s-2", userId: "bo", tags: ["beta", "prod"], outcome: "error" });
    const halted = await recordAgentRun({ sessionId: "s-2", userId: "bo", outcome: "suspended" });
    await appendRuns(join(dir, "a.jsonl"), ok, failed);
    await appendRuns(join(dir, "b.jsonl"), halted);
    const answer = await json<RunsAnswer>(await serve(dir), "/api/runs");
    expect(answer).toMatchObject({ ready: true, full: true, badLines: 0, problems: [] });
    const runs = byId(answer);
    expect(runs.size).toBe(3);
    expect(runs.get(runId(ok))).toMatchObject({
      name: "weather-agent",
      kind: "agent",
      rootSpanId: spanIdFromUuid(rootOf(ok).uuid),
      status: "ok",
      sessionId: "s-1",
      userId: "ana",
      tags: ["prod"],
      llmCalls: 2,
      toolCalls: 1,
      spans: 4,
      errors: 0,
      tokens: 134,
      costUsd: (50 * 2 + 9 * 8 + 70 * 2 + 5 * 8) / 1e6,
      models: ["m-1"],
      evaluations: [{ name: "relevance", score: 0.9 }],
      input: "Weather in Oslo?",
      output: "Oslo: 4 °C.",
      files: ["a.jsonl"],
    } satisfies Partial<RunSummary>);
    expect(runs.get(runId(failed))).toMatchObject({ status: "error", sessionId: "s-2", tags: ["beta", "prod"], llmCalls: 1, toolCalls: 0 });
    expect(runs.get(runId(halted))).toMatchObject({ status: "suspended", files: ["b.jsonl"], toolCalls: 1 });
    const root = rootOf(ok);
    const end = ok.find((e) => e.uuid === root.uuid && e.kind === "scope" && e.scope_category === "end")!;
    expect(runs.get(runId(ok))).toMatchObject({ start: parseTimestamp(root.timestamp), end: parseTimestamp(end.timestamp) });
  });

  it("reads rotated files as one input: a run started in one file and ended in the next is one run", async () => {
    const dir = await freshDir();
    const run = await recordAgentRun({ sessionId: "rotated" });
    const text = lines(run);
    const half = Math.floor(text.length / 2);
    await writeFile(join(dir, "relaytrace-atof-0001.jsonl"), text.slice(0, half).join(""));
    await writeFile(join(dir, "relaytrace-atof-0002.jsonl"), text.slice(half).join(""));
    const server = await serve(dir);
    const answer = await json<RunsAnswer>(server, "/api/runs");
    expect(answer.runs).toHaveLength(1);
    expect(answer.runs[0]).toMatchObject({ status: "ok", spans: 4, files: ["relaytrace-atof-0001.jsonl", "relaytrace-atof-0002.jsonl"] });
    const trace = await json<TraceAnswer>(server, `/api/trace/${runId(run)}`);
    const starts = run.filter((e) => e.kind === "scope" && e.scope_category === "start");
    expect(trace.doc.spans.map((s) => s.id).sort()).toEqual(starts.map((e) => spanIdFromUuid(e.uuid)).sort());
    expect(trace.doc.notes).toEqual([]);
  });

  it("follows the files: appended runs, new files and a torn last line once its end is written", async () => {
    const dir = await freshDir();
    const first = await recordAgentRun({ sessionId: "live" });
    const file = join(dir, "live.jsonl");
    await appendRuns(file, first);
    const server = await serve(dir);
    const start = await json<RunsAnswer>(server, "/api/runs");
    expect(start.runs.map((r) => r.id)).toEqual([runId(first)]);

    // A second run, its last line written only half-way: the run is listed as running until the line ends.
    const second = await recordAgentRun({ sessionId: "live", temp: 12 });
    const text = lines(second).join("");
    const cut = text.length - 40;
    await appendFile(file, text.slice(0, cut));
    await server.index.poll();
    const torn = await json<RunsAnswer>(server, `/api/runs?epoch=${start.epoch}&since=${start.version}`);
    expect(torn).toMatchObject({ full: false, badLines: 0 });
    expect(torn.runs.map((r) => [r.id, r.status])).toEqual([[runId(second), "running"]]);
    await appendFile(file, text.slice(cut));
    await server.index.poll();
    const ended = await json<RunsAnswer>(server, `/api/runs?epoch=${torn.epoch}&since=${torn.version}`);
    expect(ended.runs.map((r) => [r.id, r.status, r.output])).toEqual([[runId(second), "ok", "Oslo: 12 °C."]]);

    // A new file (a rotation): its run joins; nothing already listed changes.
    const third = await recordAgentRun({ sessionId: "live" });
    await appendRuns(join(dir, "live-2.jsonl"), third);
    await server.index.poll();
    const rotated = await json<RunsAnswer>(server, `/api/runs?epoch=${ended.epoch}&since=${ended.version}`);
    expect(rotated.runs.map((r) => r.id)).toEqual([runId(third)]);
    expect((await json<RunsAnswer>(server, "/api/runs")).runs).toHaveLength(3);
  });

  it("takes a last line without its line end when it is already a whole event", async () => {
    const dir = await freshDir();
    const run = await recordAgentRun({});
    await writeFile(join(dir, "run.jsonl"), lines(run).join("").trimEnd());
    const server = await serve(dir);
    expect((await json<RunsAnswer>(server, "/api/runs")).runs.map((r) => r.status)).toEqual(["ok"]);
    // The line end that follows later, then another run: no blank line counted, no line lost.
    const next = await recordAgentRun({});
    await appendFile(join(dir, "run.jsonl"), "\n" + lines(next).join(""));
    await server.index.poll();
    const answer = await json<RunsAnswer>(server, "/api/runs");
    expect(answer.runs.map((r) => r.status)).toEqual(["ok", "ok"]);
    expect(answer.files).toEqual([
      {
        name: "run.jsonl",
        bytes: Buffer.byteLength(lines(run).join("") + lines(next).join("")),
        lines: run.length + next.length,
        badLines: 0,
      },
    ]);
  });

  it("counts and names a corrupt line, and loads the rest", async () => {
    const dir = await freshDir();
    const a = await recordAgentRun({ sessionId: "before" });
    const b = await recordAgentRun({ sessionId: "after" });
    await writeFile(join(dir, "mixed.jsonl"), [...lines(a), '{"kind": "scope", "this is not json\n', ...lines(b)].join(""));
    await writeFile(join(dir, "other.jsonl"), '{"kind":"mark"}\n');
    const answer = await json<RunsAnswer>(await serve(dir), "/api/runs");
    expect(answer.runs.map((r) => r.sessionId).sort()).toEqual(["after", "before"]);
    expect(answer.badLines).toBe(2);
    expect(answer.problems).toEqual([
      expect.stringMatching(new RegExp(`^mixed\\.jsonl:${a.length + 1}: not valid JSON`)),
      expect.stringMatching(/^other\.jsonl:1: /),
    ]);
    expect(answer.files.map((f) => [f.name, f.badLines])).toEqual([
      ["mixed.jsonl", 1],
      ["other.jsonl", 1],
    ]);
  });

  it("merges a run whose parent scope is read after it, and says which id went away", async () => {
    const dir = await freshDir();
    const run = await recordAgentRun({});
    const root = rootOf(run);
    const children = run.filter((e) => e.uuid !== root.uuid);
    const own = run.filter((e) => e.uuid === root.uuid);
    await writeFile(join(dir, "1.jsonl"), lines(children).join(""));
    const server = await serve(dir);
    const before = await json<RunsAnswer>(server, "/api/runs");
    expect(before.runs.length).toBeGreaterThan(1); // each child of the unseen root is a run of its own for now
    await writeFile(join(dir, "2.jsonl"), lines(own).join(""));
    await server.index.poll();
    const after = await json<RunsAnswer>(server, `/api/runs?epoch=${before.epoch}&since=${before.version}`);
    expect(after.runs.map((r) => [r.id, r.spans, r.llmCalls, r.toolCalls])).toEqual([[runId(run), 4, 2, 1]]);
    expect(after.removed.sort()).toEqual(before.runs.map((r) => r.id).sort());
    expect((await json<RunsAnswer>(server, "/api/runs")).runs.map((r) => r.id)).toEqual([runId(run)]);
  });

  it("starts over under a new epoch when a file is rewritten shorter", async () => {
    const dir = await freshDir();
    const a = await recordAgentRun({});
    const b = await recordAgentRun({});
    await appendRuns(join(dir, "run.jsonl"), a, b);
    const server = await serve(dir);
    const before = await json<RunsAnswer>(server, "/api/runs");
    expect(before.runs).toHaveLength(2);
    await writeFile(join(dir, "run.jsonl"), lines(b).join(""));
    await server.index.poll();
    const after = await json<RunsAnswer>(server, `/api/runs?epoch=${before.epoch}&since=${before.version}`);
    expect(after.epoch).toBe(before.epoch + 1);
    expect(after.full).toBe(true);
    expect(after.runs.map((r) => r.id)).toEqual([runId(b)]);
    expect(after.problems).toEqual([expect.stringMatching(/^read again from the start: run\.jsonl shrank/)]);
  });

  it("reads a run back for its waterfall, and says when its file is gone", async () => {
    const dir = await freshDir();
    const run = await recordAgentRun({ sessionId: "s", evaluation: { name: "relevance", score: 0.5, label: "meh" } });
    await appendRuns(join(dir, "run.jsonl"), run);
    const server = await serve(dir);
    const trace = await json<TraceAnswer>(server, `/api/trace/${runId(run)}`);
    expect(trace.run).toMatchObject({ id: runId(run), sessionId: "s" });
    expect(trace.doc.traces.map((t) => t.traceId)).toEqual([runId(run)]);
    const llm = trace.doc.spans.find((s) => s.kind === "llm")!;
    expect(llm.evaluations).toEqual([{ name: "relevance", score: 0.5, label: "meh" }]);
    expect(llm.messages?.at(-1)?.role).toBe("assistant");
    await rm(join(dir, "run.jsonl"));
    await server.index.poll();
    const gone = await json<TraceAnswer>(server, `/api/trace/${runId(run)}`);
    expect(gone.doc.spans).toEqual([]);
    expect(gone.doc.notes[0]).toBe(`${run.length} lines of this run could not be read back (file deleted or changed)`);
    expect((await json<RunsAnswer>(server, "/api/runs")).files).toEqual([expect.objectContaining({ name: "run.jsonl", deleted: true })]);
    expect((await fetch(`${server.url}/api/trace/${"0".repeat(32)}`)).status).toBe(404);
  });

  it("compares two runs step by step with the changes `relaytrace diff` finds", async () => {
    const dir = await freshDir();
    const a = await recordAgentRun({ temp: 4 });
    const b = await recordAgentRun({ temp: 12 });
    await appendRuns(join(dir, "runs.jsonl"), a, b);
    const answer = await json<CompareAnswer>(await serve(dir), `/api/compare?a=${runId(a)}&b=${runId(b)}`);
    expect([answer.a.id, answer.b.id]).toEqual([runId(a), runId(b)]);
    const expected = diffRuns(a, b);
    expect(answer.diff.changeCount).toBe(expected.changes.length);
    expect(answer.diff.steps.flatMap((s) => s.changes)).toEqual(expected.changes);
    expect(answer.diff.steps.flatMap((s) => s.changes).map((c) => c.kind)).toEqual(["tool_result_changed", "output_changed"]);
  });
});
