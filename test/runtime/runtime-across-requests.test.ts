// One runtime (or one per request) serving request after request where every AbortSignal belongs
// to the request that made it, as on Cloudflare Workers: no call may touch a signal another
// request made. Node stands in for workerd here (test/support/request-bound-signals.ts applies
// its rule to AbortController); test/runtimes/workers.mjs runs the same on the real workerd.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createRuntime } from "../../src/runtime/runtime.js";
import type { Runtime } from "../../src/runtime/runtime.js";
import type { AtofEvent } from "../../src/events/types.js";
import { labels } from "../support/capture.js";
import { installRequestBoundSignals, type RequestBoundSignals } from "../support/request-bound-signals.js";

let requests: RequestBoundSignals;
beforeAll(() => {
  requests = installRequestBoundSignals();
});
afterAll(() => requests.uninstall());

function capturing(): { rt: Runtime; events: AtofEvent[] } {
  const rt = createRuntime();
  const events: AtofEvent[] = [];
  rt.subscribe("capture", (e) => void events.push(e));
  return { rt, events };
}

/** One request's traced work: a scope around a tool call, an LLM call and a streamed LLM call, each reading the signal it is handed. */
async function handle(rt: Runtime, i: number): Promise<unknown[]> {
  return rt.withScope(
    `request-${i}`,
    async () => {
      const tool = await rt.executeTool("lookup", { i }, (_args, ctx) => {
        ctx.signal.addEventListener("abort", () => undefined);
        return { result: { i, aborted: ctx.signal.aborted } };
      });
      const llm = await rt.executeLlm("model", { messages: [] }, (_req, ctx) => ({ aborted: ctx.signal.aborted }));
      const chunks: unknown[] = [];
      for await (const chunk of rt.executeLlmStream("model.stream", { messages: [] }, async function* (_req, ctx) {
        yield { aborted: ctx.signal.aborted };
      }))
        chunks.push(chunk);
      return [tool.result, llm, ...chunks];
    },
    { category: "agent" },
  );
}

const REQUESTS = 20;
const perRequest = ["start:agent:request-N", "start:tool:lookup", "end:tool:lookup", "start:llm:model", "end:llm:model"];

describe("a runtime across requests whose AbortSignals are their own", () => {
  it("with one runtime for the isolate, every request after the first is traced and answers", async () => {
    const { rt, events } = capturing();
    for (let i = 0; i < REQUESTS; i++) {
      const answer = await requests.inRequest(i, () => handle(rt, i));
      expect(answer).toEqual([{ i, aborted: false }, { aborted: false }, { aborted: false }]);
    }
    await rt.flush();
    const ends = events.filter((e) => e.kind === "scope" && e.scope_category === "end" && e.category === "agent");
    expect(ends.map((e) => e.name)).toEqual(Array.from({ length: REQUESTS }, (_, i) => `request-${i}`));
    const first = labels(events).slice(0, perRequest.length);
    expect(first).toEqual(perRequest.map((l) => l.replace("N", "0")));
  });

  it("with one runtime per request, every request is traced and answers", async () => {
    for (let i = 0; i < REQUESTS; i++) {
      const { rt, events } = capturing();
      const answer = await requests.inRequest(i, () => handle(rt, i));
      expect(answer).toEqual([{ i, aborted: false }, { aborted: false }, { aborted: false }]);
      await rt.flush();
      expect(events.filter((e) => e.kind === "scope" && e.scope_category === "end").map((e) => e.name)).toEqual([
        "lookup",
        "model",
        "model.stream",
        `request-${i}`,
      ]);
    }
  });

  it("a flush delivers what is queued itself, never waiting for a drain another request scheduled", async () => {
    // Workers runs a scheduled callback in the request that scheduled it, and drops it with that
    // request: here every scheduled drain is dropped.
    const dropped: unknown[] = [];
    const schedule = vi.spyOn(globalThis, "setImmediate").mockImplementation(((callback: () => void) => {
      dropped.push(callback);
      return {} as NodeJS.Immediate;
    }) as unknown as typeof setImmediate);
    try {
      const { rt, events } = capturing();
      await requests.inRequest(1, () => rt.withScope("request-1", () => rt.executeTool("lookup", {}, () => ({ result: 1 }))));
      expect(dropped.length).toBeGreaterThan(0);
      await requests.inRequest(2, () => rt.flush());
      expect(labels(events)).toEqual(["start:function:request-1", "start:tool:lookup", "end:tool:lookup", "end:function:request-1"]);
    } finally {
      schedule.mockRestore();
    }
  });
});
