import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createToolkit, type Toolkit } from "../../src/agent/index.js";

let work: string;
let tk: Toolkit;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "relaytrace-bash-runaway-"));
  tk = await createToolkit({ builtins: ["bash"], workdir: work });
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});
afterEach(() => {
  vi.useRealTimers();
});

/** True while `pid` is a live process (a zombie awaiting its reaper counts as gone). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/** Process-group ids of every live process, from /proc. */
function liveGroups(): Set<number> {
  const groups = new Set<number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = readFileSync(`/proc/${entry}/stat`, "latin1");
      const rest = fields.slice(fields.lastIndexOf(")") + 2).split(" ");
      if (rest[0] !== "Z") groups.add(Number(rest[2]));
    } catch {
      // gone meanwhile
    }
  }
  return groups;
}

describe.skipIf(process.platform !== "linux")("bash: a command that outlives its timeout or floods its output", () => {
  it("a setsid grandchild holding the pipe: the call ends with a timeout result and the grandchild's group is gone", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const sentinel = join(work, "grandchild.pid");
    // The grandchild leaves the session, writes its pid, then holds stdout open for 1000 s.
    const call = tk.execute("bash", {
      command: `setsid sh -c 'echo $$ > ${sentinel}.tmp && mv ${sentinel}.tmp ${sentinel} && exec sleep 1000'; sleep 1000`,
      timeout: 60_000,
    });
    while (!existsSync(sentinel)) await new Promise((r) => setImmediate(r));
    const grandchild = Number(readFileSync(sentinel, "utf8"));
    expect(alive(grandchild)).toBe(true);
    expect(liveGroups().has(grandchild)).toBe(true); // setsid made it a group (and session) leader
    vi.advanceTimersByTime(60_000);
    const result = await call;
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(/\[terminated by timeout after 60000 ms\]$/);
    expect(alive(grandchild)).toBe(false);
    expect(liveGroups().has(grandchild)).toBe(false);
  });

  it("600 MB of output: no crash; the head and tail are kept with a marker saying how many bytes were dropped", async () => {
    const size = 600 * 1024 * 1024;
    const result = await tk.execute("bash", { command: `printf START; yes abcdefg | head -c ${size}; printf END` });
    expect(result.isError).toBe(false);
    const total = 5 + size + 3;
    const marker = `\n[... ${total - 30_000} bytes of output dropped (${total} in all) ...]\n`;
    expect(result.output.length).toBe(30_000 + marker.length);
    expect(result.output.startsWith("STARTabcdefg\nabcdefg\n")).toBe(true);
    expect(result.output).toContain(marker);
    expect(result.output.endsWith("abcdefg\nEND")).toBe(true);
  }, 120_000);
});
