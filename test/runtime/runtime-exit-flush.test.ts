import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { startNode } from "../support/child-process.js";
import { spansOf, startOtlpReceiver, type OtlpReceiver } from "../support/otlp.js";

const dist = (p: string) => pathToFileURL(join(process.cwd(), "dist", p)).href;
let dir: string | undefined;
let receiver: OtlpReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A program on the built package that traces one agent run and then simply ends. */
function program(endpoint: string, ending: string): string {
  return `
import { createRuntime } from ${JSON.stringify(dist("src/index.js"))};
import { OtelExporter } from ${JSON.stringify(dist("exporters/index.js"))};
const runtime = createRuntime();
// A long batch delay: without a flush at exit nothing would leave before the process ends.
new OtelExporter({ projection: "full", endpoint: ${JSON.stringify(endpoint)}, protocol: "http/json", scheduledDelayMillis: 60000 }).register(runtime);
await runtime.withScope("exiting-agent", async () => {
  await runtime.executeTool("add", { a: 1, b: 2 }, async () => ({ result: 3 }));
}, { category: "agent" });
${ending}
`;
}

async function run(ending: string): Promise<{ code: number | null; names: string[] }> {
  receiver = await startOtlpReceiver();
  dir = await mkdtemp(join(tmpdir(), "relaytrace-exit-"));
  const script = join(dir, "program.mjs");
  await writeFile(script, program(`${receiver.url}/v1/traces`, ending));
  const child = startNode(script, []);
  const { code } = await child.exited;
  if (code !== 0) throw new Error(child.stderr());
  const names = receiver.received.filter((r) => r.signal === "traces").flatMap((r) => spansOf(r.body).map((s) => s.name as string));
  return { code, names: names.sort() };
}

describe("a program that never calls shutdown still delivers its spans", () => {
  it("exporters are flushed when the process ends naturally (beforeExit)", async () => {
    const { code, names } = await run("// no runtime.shutdown()");
    expect(code).toBe(0);
    expect(names).toEqual(["add", "exiting-agent"]);
  });

  it("and a program that does call shutdown delivers them once, not twice", async () => {
    const { names } = await run("await runtime.shutdown();");
    expect(names).toEqual(["add", "exiting-agent"]);
  });
});

describe("process.exit() in the same turn as the events", () => {
  it("the ATOF file gets every event emitted before process.exit(), including those still queued", async () => {
    dir = await mkdtemp(join(tmpdir(), "relaytrace-exit-"));
    const file = join(dir, "run.jsonl");
    const script = join(dir, "program.mjs");
    // Everything below runs in one synchronous turn: no event has been delivered when exit() is called.
    await writeFile(
      script,
      `
import { createRuntime } from ${JSON.stringify(dist("src/index.js"))};
import { AtofExporter } from ${JSON.stringify(dist("exporters/index.js"))};
const runtime = createRuntime();
new AtofExporter({ type: "file", path: ${JSON.stringify(file)}, mode: "overwrite" }).register(runtime);
const agent = runtime.pushScope("exiting-agent", { category: "agent" });
void runtime.executeTool("add", { a: 1, b: 2 }, () => ({ result: 3 }));
runtime.mark("last-words", { data: { n: 1 } });
runtime.popScope(agent);
process.exit(0);
`,
    );
    const child = startNode(script, []);
    const { code } = await child.exited;
    expect(code, child.stderr()).toBe(0);
    const events = (await readFile(file, "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { name: string; kind: string; scope_category?: string });
    expect(events.map((e) => `${e.name}:${e.scope_category ?? e.kind}`)).toEqual([
      "exiting-agent:start",
      "add:start",
      "add:end",
      "last-words:mark",
      "exiting-agent:end",
    ]);
  });
});
