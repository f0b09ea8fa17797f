import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { defineTool, type Tool } from "../tool.js";

const MAX_READ_CHARS = 100_000;

/** The built-in `read` tool: returns a UTF-8 file's text (truncated past 100k characters). */
export function readTool(): Tool {
  return defineTool({
    name: "read",
    description: "Read a UTF-8 text file and return its content.",
    source: "builtin",
    inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    async execute(args) {
      try {
        const text = await readFile(resolve(String(args.path)), "utf8");
        return text.length > MAX_READ_CHARS ? `${text.slice(0, MAX_READ_CHARS)}\n[truncated]` : text;
      } catch (err) {
        return { output: `read failed: ${(err as Error).message}`, isError: true };
      }
    },
  });
}

/** The built-in `write` tool: writes UTF-8 text to a file, creating parent directories. */
export function writeTool(): Tool {
  return defineTool({
    name: "write",
    description: "Write UTF-8 text to a file, creating parent directories.",
    source: "builtin",
    inputSchema: {
      type: "object",
      properties: { path: { type: "string" }, content: { type: "string" } },
      required: ["path", "content"],
    },
    async execute(args) {
      try {
        const path = resolve(String(args.path));
        await mkdir(dirname(path), { recursive: true });
        await writeFile(path, String(args.content), "utf8");
        return `wrote ${String(args.content).length} characters to ${String(args.path)}`;
      } catch (err) {
        return { output: `write failed: ${(err as Error).message}`, isError: true };
      }
    },
  });
}
