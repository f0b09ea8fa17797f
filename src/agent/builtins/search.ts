import { readdir, readFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { defineTool, type Tool } from "../tool.js";
import { failure } from "./files.js";
import type { Workspace } from "./workspace.js";

const SKIPPED_DIRS = new Set(["node_modules", ".git"]);
const DEFAULT_LIMIT = 100;

/** A glob (`*`, `**`, `?`) as an anchored RegExp over `/`-separated relative paths. */
export function globPattern(glob: string): RegExp {
  let re = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "*" && glob[i + 1] === "*") {
      // `**/` also matches no directory at all
      re += glob[i + 2] === "/" ? "(?:.*/)?" : ".*";
      i += glob[i + 2] === "/" ? 2 : 1;
    } else if (c === "*") re += "[^/]*";
    else if (c === "?") re += "[^/]";
    else re += c.replace(/[\\^$.|+()[\]{}]/g, "\\$&");
  }
  return new RegExp(`^${re}$`);
}

/** A glob without `/` matches the file name; one with `/` matches the whole relative path. */
function globMatcher(glob: string): (rel: string) => boolean {
  const re = globPattern(glob);
  return glob.includes("/") ? (rel) => re.test(rel) : (rel) => re.test(rel.slice(rel.lastIndexOf("/") + 1));
}

/**
 * The files under `root`, depth-first with an explicit stack (no recursion on depth), skipping
 * node_modules and .git; symlinks are not followed, so a walk never leaves the workdir.
 */
async function* walk(root: string): AsyncGenerator<string> {
  const stack = [root];
  while (stack.length > 0) {
    const dir = stack.pop()!;
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? 1 : a.name > b.name ? -1 : 0));
    for (const entry of entries) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) stack.push(full);
      } else if (entry.isFile()) yield full;
    }
  }
}

function relativeTo(root: string, file: string): string {
  return relative(root, file).split(sep).join("/");
}

function limitOf(value: unknown): number {
  return typeof value === "number" && value > 0 ? Math.trunc(value) : DEFAULT_LIMIT;
}

/** The built-in `grep` tool: `file:line:text` for each line matching a regex, under `path`, filtered by `include`. */
export function grepTool(workspace: Workspace): Tool {
  return defineTool({
    name: "grep",
    description: "Search file contents by regex under a directory. Output is file:line:text matches.",
    source: "builtin",
    inputSchema: {
      type: "object",
      properties: {
        pattern: { type: "string", description: "Regular expression to search for" },
        path: { type: "string", description: "Directory to search (default: the toolkit's workdir)" },
        include: { type: "string", description: "Glob filter for file names" },
        limit: { type: "number", description: "Maximum number of matches (default 100)" },
      },
      required: ["pattern"],
      additionalProperties: false,
    },
    async execute(args) {
      let re: RegExp;
      try {
        re = new RegExp(String(args.pattern));
      } catch (err) {
        return failure("grep: invalid regex", err);
      }
      try {
        const root = workspace.resolve(args.path === undefined ? "." : String(args.path));
        const include = typeof args.include === "string" && args.include !== "" ? globMatcher(args.include) : undefined;
        const limit = limitOf(args.limit);
        const matches: string[] = [];
        for await (const file of walk(root)) {
          if (matches.length >= limit) break;
          if (include && !include(relativeTo(root, file))) continue;
          let text: string;
          try {
            text = await readFile(file, "utf8");
          } catch {
            continue;
          }
          const lines = text.split("\n");
          for (let i = 0; i < lines.length && matches.length < limit; i++) {
            if (re.test(lines[i]!)) matches.push(`${file}:${i + 1}:${lines[i]}`);
          }
        }
        return matches.join("\n");
      } catch (err) {
        return failure("grep", err);
      }
    },
  });
}

/** The built-in `glob` tool: the relative paths of files matching a glob under `path`, sorted. */
export function globTool(workspace: Workspace): Tool {
  return defineTool({
    name: "glob",
    description: "List files matching a glob under a directory. Output is newline-joined relative paths.",
    source: "builtin",
    inputSchema: {
      type: "object",
      properties: {
        pattern: { type: "string", description: "Glob pattern to match" },
        path: { type: "string", description: "Directory to search (default: the toolkit's workdir)" },
        limit: { type: "number", description: "Maximum number of results (default 100)" },
      },
      required: ["pattern"],
      additionalProperties: false,
    },
    async execute(args) {
      try {
        const root = workspace.resolve(args.path === undefined ? "." : String(args.path));
        const matches = globMatcher(String(args.pattern));
        const limit = limitOf(args.limit);
        const found: string[] = [];
        for await (const file of walk(root)) {
          if (found.length >= limit) break;
          const rel = relativeTo(root, file);
          if (matches(rel)) found.push(rel);
        }
        return found.sort().join("\n");
      } catch (err) {
        return failure("glob", err);
      }
    },
  });
}
