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
        const child = spawn("/bin/sh", ["-c", String(args.command)], { signal: ctx.signal, timeout });
        let output = "";
        child.stdout.on("data", (b: Buffer) => (output += b.toString("utf8")));
        child.stderr.on("data", (b: Buffer) => (output += b.toString("utf8")));
        child.on("error", (err) => done({ output: truncate(`${output}${err.message}`), isError: true }));
        child.on("close", (code, signal) => {
          if (signal) return done({ output: truncate(`${output}\n[terminated by ${signal}]`), isError: true });
          done({ output: truncate(output), isError: code !== 0 });
        });
      });
    },
  });
}
