import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { defineTool, type Tool } from "../tool.js";
import type { Workspace } from "./workspace.js";

const MAX_READ_CHARS = 100_000;

/** `<tool>: <message>`, the error-result wording every built-in uses. */
export function failure(tool: string, err: unknown): { output: string; isError: true } {
  return { output: `${tool}: ${err instanceof Error ? err.message : String(err)}`, isError: true };
}

/** The built-in `read` tool: a UTF-8 file's text, or the `offset` (1-based line) / `limit` (lines) window of it. */
export function readTool(workspace: Workspace): Tool {
  return defineTool({
    name: "read",
    description: "Read a UTF-8 text file. With offset/limit, return only that line window.",
    source: "builtin",
    inputSchema: {
      type: "object",
      properties: {
        path: { type: "string", description: "Path to the file to read" },
        offset: { type: "number", description: "1-based line to start from" },
        limit: { type: "number", description: "Maximum number of lines to read" },
      },
      required: ["path"],
      additionalProperties: false,
    },
    async execute(args) {
      try {
        const text = await readFile(workspace.resolve(String(args.path)), "utf8");
        let out = text;
        if (args.offset !== undefined || args.limit !== undefined) {
          const lines = text.split("\n");
          const start = typeof args.offset === "number" ? Math.max(1, Math.trunc(args.offset)) - 1 : 0;
          const count = typeof args.limit === "number" ? Math.max(0, Math.trunc(args.limit)) : lines.length - start;
          out = lines.slice(start, start + count).join("\n");
        }
        return out.length > MAX_READ_CHARS ? `${out.slice(0, MAX_READ_CHARS)}\n[truncated]` : out;
      } catch (err) {
        return failure("read", err);
      }
    },
  });
}

/** The built-in `write` tool: writes UTF-8 text to a file (create or overwrite), creating parent directories. */
export function writeTool(workspace: Workspace): Tool {
  return defineTool({
    name: "write",
    description: "Write content to a file (create/overwrite), creating parent directories.",
    source: "builtin",
    inputSchema: {
      type: "object",
      properties: {
        path: { type: "string", description: "Path to write to" },
        content: { type: "string", description: "Content to write" },
      },
      required: ["path", "content"],
      additionalProperties: false,
    },
    async execute(args) {
      try {
        const path = workspace.resolve(String(args.path));
        const content = String(args.content);
        await mkdir(dirname(path), { recursive: true });
        await writeFile(path, content, "utf8");
        return { output: `Wrote ${Buffer.byteLength(content, "utf8")} bytes to ${String(args.path)}`, isError: false };
      } catch (err) {
        return failure("write", err);
      }
    },
  });
}

/** The built-in `edit` tool: exact-string replacement; the old string must occur once unless `replaceAll`. */
export function editTool(workspace: Workspace): Tool {
  return defineTool({
    name: "edit",
    description: "Exact-string replace in a file. Default replaces a single unique occurrence; replaceAll replaces all.",
    source: "builtin",
    inputSchema: {
      type: "object",
      properties: {
        path: { type: "string", description: "Path to the file to edit" },
        oldString: { type: "string", description: "Exact string to replace" },
        newString: { type: "string", description: "Replacement string" },
        replaceAll: { type: "boolean", description: "Replace all occurrences" },
      },
      required: ["path", "oldString", "newString"],
      additionalProperties: false,
    },
    async execute(args) {
      const shown = String(args.path);
      const oldString = String(args.oldString);
      const newString = String(args.newString);
      if (oldString === "") return { output: "edit: oldString must not be empty", isError: true };
      try {
        const path = workspace.resolve(shown);
        const text = await readFile(path, "utf8");
        const count = text.split(oldString).length - 1;
        if (count === 0) return { output: `edit: oldString not found in ${shown}`, isError: true };
        const all = args.replaceAll === true;
        if (!all && count > 1)
          return { output: `edit: oldString is not unique in ${shown} (${count} occurrences); use replaceAll`, isError: true };
        // count is 1 unless replaceAll; split/join keeps `$&` and friends in newString literal
        const next = text.split(oldString).join(newString);
        await writeFile(path, next, "utf8");
        const n = all ? count : 1;
        return { output: `Edited ${shown} (${n} replacement${n === 1 ? "" : "s"})`, isError: false };
      } catch (err) {
        return failure("edit", err);
      }
    },
  });
}
