import { spawn } from "node:child_process";
import { defineTool, type Tool } from "../tool.js";
import { failure } from "./files.js";
import type { Workspace } from "./workspace.js";

const MAX_OUTPUT_CHARS = 30_000;
const DEFAULT_TIMEOUT_MS = 60_000;

function truncate(text: string): string {
  return text.length > MAX_OUTPUT_CHARS ? `${text.slice(0, MAX_OUTPUT_CHARS)}\n[output truncated]` : text;
}

/**
 * Runs a shell command in the workdir (or a `workdir` inside it) with a timeout (`timeout`, ms);
 * a non-zero exit is an error result. The command itself is not confined: only named, never in
 * the `builtins: true` set.
 */
export function bashTool(workspace: Workspace): Tool {
  return defineTool({
    name: "bash",
    description: "Run a shell command and return its combined stdout+stderr. Non-zero exit is an error.",
    source: "builtin",
    inputSchema: {
      type: "object",
      properties: {
        command: { type: "string", description: "The shell command to run" },
        workdir: { type: "string", description: "Working directory (default: the toolkit's workdir)" },
        timeout: { type: "number", description: "Timeout in milliseconds (default 60000)" },
        description: { type: "string", description: "Human-readable description of the command" },
      },
      required: ["command"],
      additionalProperties: false,
    },
    execute(args, ctx) {
      const timeout = typeof args.timeout === "number" && args.timeout > 0 ? args.timeout : DEFAULT_TIMEOUT_MS;
      let cwd: string;
      try {
        cwd = args.workdir === undefined ? workspace.root : workspace.resolve(String(args.workdir));
      } catch (err) {
        return failure("bash", err);
      }
      return new Promise((done) => {
        // Own process group, so a timeout or abort kills the whole pipeline, not just the shell.
        const child = spawn("/bin/sh", ["-c", String(args.command)], { cwd, detached: true, stdio: ["ignore", "pipe", "pipe"] });
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
          if (killedBy || signal) return finish({ output: `${truncate(output)}\n[terminated by ${killedBy ?? signal}]`, isError: true });
          if (code !== 0) return finish({ output: `${truncate(output)}\nbash: command exited with code ${code}`, isError: true });
          finish({ output: truncate(output), isError: false });
        });
      });
    },
  });
}
