import { existsSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { defineTool, type Tool } from "../tool.js";
import { failure } from "./files.js";
import type { Workspace } from "./workspace.js";

type FileOp =
  { kind: "add"; path: string; content: string } | { kind: "delete"; path: string } | { kind: "update"; path: string; body: string[] };

const FILE_HEADER = /^\*\*\* (Add|Update|Delete) File: (.+)$/;

/** Parses the `*** Begin Patch` … `*** End Patch` grammar into file operations; a malformed patch throws. */
export function parsePatch(text: string): FileOp[] {
  const lines = text.split("\n");
  let i = 0;
  while (i < lines.length && lines[i]!.trim() === "") i++;
  if (lines[i]?.trim() !== "*** Begin Patch") throw new Error("missing '*** Begin Patch'");
  i++;
  const ops: FileOp[] = [];
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.trim() === "*** End Patch") return ops;
    if (line.trim() === "") {
      i++;
      continue;
    }
    const header = FILE_HEADER.exec(line);
    if (!header) throw new Error(`unexpected line: ${line}`);
    const path = header[2]!.trim();
    const body: string[] = [];
    for (i++; i < lines.length && lines[i]!.trim() !== "*** End Patch" && !FILE_HEADER.test(lines[i]!); i++) body.push(lines[i]!);
    if (header[1] === "Add") ops.push({ kind: "add", path, content: body.map((l) => (l.startsWith("+") ? l.slice(1) : l)).join("\n") });
    else if (header[1] === "Delete") ops.push({ kind: "delete", path });
    else ops.push({ kind: "update", path, body });
  }
  throw new Error("missing '*** End Patch'");
}

/** Applies an update's hunks (split at `@@` lines) to `content`; a hunk whose old lines are not found throws. */
function applyHunks(content: string, body: readonly string[]): string {
  const hunks: string[][] = [[]];
  for (const line of body) {
    if (line.startsWith("@@")) hunks.push([]);
    else hunks.at(-1)!.push(line);
  }
  let out = content;
  for (const hunk of hunks) {
    if (hunk.length === 0) continue;
    const before: string[] = [];
    const after: string[] = [];
    for (const line of hunk) {
      const mark = line[0];
      const rest = mark === "-" || mark === "+" || mark === " " ? line.slice(1) : line;
      if (mark !== "+") before.push(rest);
      if (mark !== "-") after.push(rest);
    }
    const oldBlock = before.join("\n");
    const newBlock = after.join("\n");
    if (oldBlock === "") {
      // no context: an insertion at the end
      out = out === "" || out.endsWith("\n") ? out + newBlock : `${out}\n${newBlock}`;
      continue;
    }
    const at = out.indexOf(oldBlock);
    if (at < 0) throw new Error("hunk does not match file contents");
    out = out.slice(0, at) + newBlock + out.slice(at + oldBlock.length);
  }
  return out;
}

/**
 * The built-in `apply_patch` tool: adds, updates and deletes files under the workdir. Every
 * operation is checked and computed first; nothing is written unless all of them apply.
 */
export function applyPatchTool(workspace: Workspace): Tool {
  return defineTool({
    name: "apply_patch",
    description: "Apply a patch (Begin/End Patch grammar: Add/Update/Delete File). Atomic — a non-matching hunk aborts with no writes.",
    source: "builtin",
    inputSchema: {
      type: "object",
      properties: { patchText: { type: "string", description: "The patch text in Begin/End Patch format" } },
      required: ["patchText"],
      additionalProperties: false,
    },
    async execute(args) {
      const writes: { path: string; content: string }[] = [];
      const deletes: string[] = [];
      let ops: FileOp[];
      try {
        ops = parsePatch(String(args.patchText));
        for (const op of ops) {
          const path = workspace.resolve(op.path);
          if (op.kind === "add") {
            if (existsSync(path)) throw new Error(`file already exists: ${op.path}`);
            writes.push({ path, content: op.content });
          } else if (op.kind === "delete") {
            if (!existsSync(path)) throw new Error(`file not found: ${op.path}`);
            deletes.push(path);
          } else {
            writes.push({ path, content: applyHunks(await readFile(path, "utf8"), op.body) });
          }
        }
      } catch (err) {
        return failure("apply_patch", err);
      }
      try {
        for (const w of writes) {
          await mkdir(dirname(w.path), { recursive: true });
          await writeFile(w.path, w.content, "utf8");
        }
        for (const d of deletes) await rm(d, { force: true });
      } catch (err) {
        return failure("apply_patch", err);
      }
      return `Applied patch: ${ops.length} file operation${ops.length === 1 ? "" : "s"}`;
    },
  });
}
