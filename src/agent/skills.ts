import type { Dirent } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { nodeFs } from "../events/node-fs.js";
import type { ToolResult } from "./pending.js";
import type { Tool } from "./tool.js";
import { yamlParser } from "./yaml-parser.js";

/** One discovered skill: a `SKILL.md` with a `name` in its YAML front matter. */
export interface SkillInfo {
  name: string;
  description?: string;
  /** Absolute path of the SKILL.md. */
  location: string;
  /** The markdown after the front matter. */
  content: string;
}

/** Why a SKILL.md did not become a skill. */
export type SkillSkipReason = "missing-name" | "malformed-frontmatter" | "duplicate-name" | "unreadable";

/** What `listSkills` found: the skills (first of a name wins) and every SKILL.md left out, with why. */
export interface SkillInventory {
  skills: SkillInfo[];
  skipped: { location: string; reason: SkillSkipReason }[];
}

/** The `skill` tool's description: the loader text toolnexus and opencode use, so prompts carry over. */
export const SKILL_TOOL_DESCRIPTION = [
  "Load a specialized skill when the task at hand matches one of the skills listed in the system prompt.",
  "",
  "Use this tool to inject the skill's instructions and resources into current conversation. " +
    "The output may contain detailed workflow guidance as well as references to scripts, files, etc in the same directory as the skill.",
  "",
  "The skill name must match one of the skills listed in your system prompt.",
].join("\n");

const PROMPT_PREAMBLE =
  "Skills provide specialized instructions and workflows for specific tasks.\n" +
  "Use the skill tool to load a skill when a task matches its description.";
const NO_SKILLS = "No skills are currently available.";
const SAMPLED_FILES = 10;
const SKIPPED_DIRS = new Set(["node_modules", ".git"]);

/** Directory or file, following a symlink to see which; undefined for a dangling link or anything else. */
function kindOf(dir: string, entry: Dirent): "dir" | "file" | undefined {
  if (entry.isDirectory()) return "dir";
  if (entry.isFile()) return "file";
  if (!entry.isSymbolicLink()) return undefined;
  try {
    const target = nodeFs().statSync(join(dir, entry.name));
    return target.isDirectory() ? "dir" : target.isFile() ? "file" : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Walks `root` with an explicit stack (no recursion on depth), entries sorted by name so the
 * order is the same on every file system. Symlinked directories are followed; a directory
 * already visited under its real path is not walked again, so a link cycle ends.
 */
function walk(root: string, keep: (name: string) => boolean, limit = Infinity): string[] {
  const found: string[] = [];
  const visited = new Set<string>();
  const stack = [root];
  while (stack.length > 0 && found.length < limit) {
    const dir = stack.pop()!;
    let real: string;
    try {
      real = nodeFs().realpathSync(dir);
    } catch {
      continue;
    }
    if (visited.has(real)) continue;
    visited.add(real);
    let entries: Dirent[];
    try {
      entries = nodeFs().readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const subdirs: string[] = [];
    for (const entry of entries) {
      const kind = kindOf(dir, entry);
      if (kind === "dir" && !SKIPPED_DIRS.has(entry.name)) subdirs.push(join(dir, entry.name));
      else if (kind === "file" && keep(entry.name) && found.length < limit) found.push(join(dir, entry.name));
    }
    // reversed, so the stack visits subdirectories in name order
    for (let i = subdirs.length - 1; i >= 0; i--) stack.push(subdirs[i]!);
  }
  return found;
}

/** The `---` fenced YAML front matter (scalars as trimmed strings) and the body after it. */
function parseFrontMatter(text: string): { data: Record<string, string>; body: string; malformed: boolean } {
  const match = /^---\r?\n([\s\S]*?)\r?\n---(?:\r?\n|$)([\s\S]*)$/.exec(text);
  if (!match) return { data: {}, body: text, malformed: false };
  const parseYaml = yamlParser(); // outside the try: a parser that cannot load is not malformed front matter
  let parsed: unknown;
  try {
    parsed = parseYaml(match[1]!);
  } catch {
    return { data: {}, body: match[2]!, malformed: true };
  }
  const data: Record<string, string> = {};
  if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) {
    for (const [key, value] of Object.entries(parsed)) {
      // trimmed: block scalars keep a trailing newline that is not part of the value
      if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") data[key] = String(value).trim();
    }
  }
  return { data, body: match[2]!, malformed: false };
}

/**
 * Discovers every `**\/SKILL.md` under `dirs`, in order; the first skill of a name wins. The YAML
 * parser loads on first use (see yaml-parser.ts).
 */
export function listSkills(dirs: readonly string[]): SkillInventory {
  const inventory: SkillInventory = { skills: [], skipped: [] };
  const names = new Set<string>();
  for (const dir of dirs) {
    const root = resolve(dir);
    for (const location of walk(root, (name) => name === "SKILL.md")) {
      let text: string;
      try {
        text = nodeFs().readFileSync(location, "utf8");
      } catch {
        inventory.skipped.push({ location, reason: "unreadable" });
        continue;
      }
      const { data, body, malformed } = parseFrontMatter(text);
      if (malformed) inventory.skipped.push({ location, reason: "malformed-frontmatter" });
      else if (!data.name) inventory.skipped.push({ location, reason: "missing-name" });
      else if (names.has(data.name)) inventory.skipped.push({ location, reason: "duplicate-name" });
      else {
        names.add(data.name);
        const info: SkillInfo = { name: data.name, location, content: body };
        if (data.description !== undefined) info.description = data.description;
        inventory.skills.push(info);
      }
    }
  }
  return inventory;
}

/** The system-prompt catalog of the skills that have a description (toolnexus's text). */
export function skillsCatalog(skills: readonly SkillInfo[]): string {
  const described = skills.filter((s) => s.description !== undefined).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (described.length === 0) return NO_SKILLS;
  return [PROMPT_PREAMBLE, "", "## Available Skills", ...described.map((s) => `- **${s.name}**: ${s.description}`)].join("\n");
}

/** What the `skill` tool returns for one skill: its body, base directory and up to ten of its files. */
export function skillContent(skill: SkillInfo): ToolResult {
  const dir = dirname(skill.location);
  const files = walk(dir, (name) => name !== "SKILL.md", SAMPLED_FILES);
  const output = [
    `<skill_content name="${skill.name}">`,
    `# Skill: ${skill.name}`,
    "",
    skill.content.trim(),
    "",
    `Base directory for this skill: ${pathToFileURL(dir).href}`,
    "Relative paths in this skill (e.g., scripts/, reference/) are relative to this base directory.",
    "Note: file list is sampled.",
    "",
    "<skill_files>",
    files.map((f) => `<file>${f}</file>`).join("\n"),
    "</skill_files>",
    "</skill_content>",
  ].join("\n");
  return { output, isError: false, metadata: { name: skill.name, dir } };
}

/** The single `skill` tool: loads one skill's instructions and files on demand. */
export function skillTool(skills: readonly SkillInfo[]): Tool {
  const byName = new Map(skills.map((s) => [s.name, s]));
  return Object.freeze({
    name: "skill",
    description: SKILL_TOOL_DESCRIPTION,
    inputSchema: {
      type: "object",
      properties: { name: { type: "string", description: "The name of the skill to load" } },
      required: ["name"],
      additionalProperties: false,
    },
    source: "skill" as const,
    async execute(args: Record<string, unknown>): Promise<ToolResult> {
      const name = typeof args.name === "string" ? args.name : "";
      const skill = byName.get(name);
      if (skill) return skillContent(skill);
      const available = [...byName.keys()].sort().join(", ") || "none";
      return { output: `Skill "${name}" not found. Available skills: ${available}`, isError: true };
    },
  });
}
