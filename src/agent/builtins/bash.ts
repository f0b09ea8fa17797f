import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { defineTool, type Tool } from "../tool.js";
import { BoundedOutput } from "./bounded-output.js";
import { failure } from "./files.js";
import { killRun, RUN_MARK_VARIABLE } from "./process-tree.js";
import type { Workspace } from "./workspace.js";

/** Output kept from the start and from the end of a command's output; what lies between is counted, not kept. */
const HEAD_BYTES = 20_000;
const TAIL_BYTES = 10_000;
const DEFAULT_TIMEOUT_MS = 60_000;

/**
 * Runs a shell command in the workdir (or a `workdir` inside it) with a timeout (`timeout`, ms);
 * a non-zero exit is an error result. At the timeout (or an abort) everything the command started
 * is killed, a descendant that left its session with `setsid` too, and the call ends then, even if
 * something still holds the output pipe. The command itself is not confined: only named, never in
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
        const mark = randomBytes(12).toString("hex");
        // Own session and process group, so a timeout or abort kills the whole pipeline, not just the shell.
        const child = spawn("/bin/sh", ["-c", String(args.command)], {
          cwd,
          detached: true,
          stdio: ["ignore", "pipe", "pipe"],
          env: { ...process.env, [RUN_MARK_VARIABLE]: mark },
        });
        const output = new BoundedOutput(HEAD_BYTES, TAIL_BYTES);
        let finished = false;
        const finish = (result: { output: string; isError: boolean }) => {
          if (finished) return;
          finished = true;
          clearTimeout(timer);
          ctx.signal.removeEventListener("abort", onAbort);
          done(result);
        };
        const kill = (why: string) => {
          if (child.pid !== undefined) killRun(child.pid, mark);
          // A process that escaped the kill (another user's, a cleared environment) may hold the
          // pipe open: the call ends now regardless.
          child.stdout.destroy();
          child.stderr.destroy();
          finish({ output: `${output.text()}\n[terminated by ${why}]`, isError: true });
        };
        const timer = setTimeout(() => kill(`timeout after ${timeout} ms`), timeout);
        const onAbort = () => kill("abort");
        ctx.signal.addEventListener("abort", onAbort, { once: true });
        child.stdout.on("data", (b: Buffer) => output.add(b));
        child.stderr.on("data", (b: Buffer) => output.add(b));
        child.on("error", (err) => finish({ output: `${output.text()}${err.message}`, isError: true }));
        child.on("close", (code, signal) => {
          if (signal) return finish({ output: `${output.text()}\n[terminated by ${signal}]`, isError: true });
          if (code !== 0) return finish({ output: `${output.text()}\nbash: command exited with code ${code}`, isError: true });
          finish({ output: output.text(), isError: false });
        });
      });
    },
  });
}
