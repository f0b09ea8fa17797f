import { spawn } from "node:child_process";
import { defineTool, type Tool } from "../tool.js";

const MAX_OUTPUT_CHARS = 30_000;
const DEFAULT_TIMEOUT_MS = 60_000;

function truncate(text: string): string {
  return text.length > MAX_OUTPUT_CHARS ? `${text.slice(0, MAX_OUTPUT_CHARS)}\n[output truncated]` : text;
}

/** Runs a shell command with a timeout; a non-zero exit is an error result. */
export function bashTool(): Tool {
  return defineTool({
    name: "bash",
    description: "Run a shell command and return its combined stdout and stderr.",
    source: "builtin",
    inputSchema: {
      type: "object",
      properties: { command: { type: "string" }, timeoutMs: { type: "number" } },
      required: ["command"],
    },
    execute(args, ctx) {
      const timeout = typeof args.timeoutMs === "number" && args.timeoutMs > 0 ? args.timeoutMs : DEFAULT_TIMEOUT_MS;
      return new Promise((done) => {
        // Own process group, so a timeout or abort kills the whole pipeline, not just the shell.
        const child = spawn("/bin/sh", ["-c", String(args.command)], { detached: true, stdio: ["ignore", "pipe", "pipe"] });
        let output = "";
        let killedBy: string | undefined;
        const kill = (why: string) => {
          killedBy ??= why;
          try {
            if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
          } catch {
            // already gone
          }
        };
        const timer = setTimeout(() => kill(`timeout after ${timeout} ms`), timeout);
        const onAbort = () => kill("abort");
        ctx.signal.addEventListener("abort", onAbort, { once: true });
        const finish = (result: { output: string; isError: boolean }) => {
          clearTimeout(timer);
          ctx.signal.removeEventListener("abort", onAbort);
          done(result);
        };
        child.stdout.on("data", (b: Buffer) => (output += b.toString("utf8")));
        child.stderr.on("data", (b: Buffer) => (output += b.toString("utf8")));
        child.on("error", (err) => finish({ output: truncate(`${output}${err.message}`), isError: true }));
        child.on("close", (code, signal) => {
          if (killedBy || signal) return finish({ output: truncate(`${output}\n[terminated by ${killedBy ?? signal}]`), isError: true });
          finish({ output: truncate(output), isError: code !== 0 });
        });
      });
    },
  });
}
