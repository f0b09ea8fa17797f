import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createToolkit, pendingOf, type Toolkit } from "../src/agent/index.js";

let dir: string;
let tk: Toolkit;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "relaytrace-agent-"));
  tk = await createToolkit({ builtins: true });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("built-in tools", () => {
  it("write then read a file", async () => {
    const path = join(dir, "sub", "note.txt");
    const w = await tk.execute("write", { path, content: "hello file" });
    expect(w.isError).toBe(false);
    expect(await readFile(path, "utf8")).toBe("hello file");
    expect(await tk.execute("read", { path })).toEqual({ output: "hello file", isError: false });
    const missing = await tk.execute("read", { path: join(dir, "absent.txt") });
    expect(missing.isError).toBe(true);
    expect(missing.output).toMatch(/^read failed: .*ENOENT/);
  });

  it("bash returns output, reports a non-zero exit as an error and kills a command past its timeout", async () => {
    expect(await tk.execute("bash", { command: "echo out; echo err 1>&2" })).toEqual({ output: "out\nerr\n", isError: false });
    expect((await tk.execute("bash", { command: "exit 3" })).isError).toBe(true);
    const slow = await tk.execute("bash", { command: "sleep 5", timeoutMs: 100 });
    expect(slow.isError).toBe(true);
    expect(slow.output).toContain("terminated by");
    const big = await tk.execute("bash", { command: "head -c 40000 /dev/zero | tr '\\0' a" });
    expect(big.output.endsWith("[output truncated]")).toBe(true);
  });

  it("question suspends with kind question and returns the answer text on retry", async () => {
    const first = await tk.execute("question", { question: "which colour?" });
    expect(pendingOf(first)).toMatchObject({ kind: "question", prompt: "which colour?" });
    const second = await tk.execute("question", { question: "which colour?" }, { answer: { id: pendingOf(first)!.id, ok: true, data: { text: "blue" } } });
    expect(second).toEqual({ output: "blue", isError: false });
  });
});
