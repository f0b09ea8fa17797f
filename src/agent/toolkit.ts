import type { ToolDeclaration } from "./providers/types.js";
import type { ToolResult } from "./pending.js";
import type { Tool, ToolContext } from "./tool.js";
import type { BuiltinName } from "./builtins/index.js";
import { check, declareOptions, is } from "../events/option-spec.js";
import { listSkills, skillsCatalog, skillTool, type SkillInfo } from "./skills.js";
import { loadYamlParser } from "./yaml-parser.js";

/** Names of the built-in tools (toolnexus's set). A relay tool may never take one, built-ins on or off. */
export const BUILTIN_TOOL_NAMES: readonly string[] = Object.freeze([
  "bash",
  "read",
  "write",
  "edit",
  "grep",
  "glob",
  "webfetch",
  "question",
  "apply_patch",
  "todowrite",
]);

/** Options of `createToolkit`; an unknown key is a TypeError naming the closest known one. */
export interface ToolkitOptions {
  tools?: Tool[];
  /**
   * Built-in tools, off by default. `true`: the safe set (read, write, edit, grep, glob,
   * question, apply_patch, todowrite); a list selects exactly the named ones, and is the only way
   * to get `bash` and `webfetch`.
   */
  builtins?: boolean | readonly BuiltinName[];
  /**
   * Skill roots: every `**\/SKILL.md` below them (YAML front matter with a `name`; symlinked
   * directories followed) becomes a skill, the `skill` tool loads one on demand, and
   * `skillsPrompt()` lists the described ones for the system prompt.
   */
  skills?: readonly string[];
  /**
   * The directory the file built-ins work in (default: the process's working directory). A path
   * outside it — absolute, through `..` or through a symlink — is an error result.
   */
  workdir?: string;
}

/** `createToolkit`'s options, declared once (keys, type checks and messages derive from it). */
const TOOLKIT_OPTIONS = declareOptions<ToolkitOptions>(
  "createToolkit",
  {
    tools: is.array,
    builtins: check("a boolean or a list of built-in names", (v) => typeof v === "boolean" || Array.isArray(v)),
    skills: check("a list of directories", (v) => Array.isArray(v) && v.every((d) => typeof d === "string")),
    workdir: is.string,
  },
  { label: (key) => `option "${key}"` },
);

function checkToolkitOptions(options: unknown): asserts options is ToolkitOptions {
  if (options === undefined) throw new TypeError("createToolkit: options must be an object");
  TOOLKIT_OPTIONS.check(options);
}

function collisionGuard(tools: readonly Tool[]): void {
  const clashing = tools
    .filter((t) => t.source === "relay" && BUILTIN_TOOL_NAMES.includes(t.name))
    .map((t) => t.name)
    .sort();
  if (clashing.length > 0) {
    throw new Error(
      `toolnexus: relay tool name collides with a built-in tool: [${clashing.join(" ")}] — ` +
        "rename the relay tool so the model cannot confuse it with the built-in",
    );
  }
}

/** The tools a client can declare and execute; lookup is by name, first registration wins. */
export class Toolkit {
  private readonly byName = new Map<string, Tool>();
  private readonly ordered: Tool[] = [];
  private readonly skillSet: readonly SkillInfo[] | undefined;

  /** `skills`: the discovered skills when the toolkit was made with skill roots (their catalog is `skillsPrompt()`). */
  constructor(tools: readonly Tool[], skills?: readonly SkillInfo[]) {
    collisionGuard(tools);
    for (const t of tools) this.add(t);
    this.skillSet = skills;
  }

  private add(tool: Tool): void {
    if (this.byName.has(tool.name)) return;
    this.byName.set(tool.name, tool);
    this.ordered.push(tool);
  }

  /** Adds tools after construction, under the same relay collision guard; a name already taken is a TypeError. */
  register(...tools: Tool[]): void {
    collisionGuard(tools);
    const names = new Set<string>();
    for (const t of tools) {
      if (this.byName.has(t.name) || names.has(t.name)) throw new TypeError(`toolkit already has a tool named ${t.name}`);
      names.add(t.name);
    }
    for (const t of tools) this.add(t);
  }

  /** The tools in declaration order. */
  get tools(): readonly Tool[] {
    return this.ordered.slice();
  }

  /** The tool registered under `name`, if any. */
  get(name: string): Tool | undefined {
    return this.byName.get(name);
  }

  /** Executes a tool by name; an unknown name is an error result, never a throw. */
  async execute(name: string, args: Record<string, unknown>, ctx?: Partial<ToolContext>): Promise<ToolResult> {
    const tool = this.byName.get(name);
    if (!tool) return { output: `Unknown tool: ${name}`, isError: true };
    return tool.execute(args, ctx);
  }

  /** Provider-neutral declarations of every tool, as the loop sends them. */
  declarations(): ToolDeclaration[] {
    return this.ordered.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }));
  }

  /** OpenAI `tools` entries. */
  toOpenAI(): { type: "function"; function: { name: string; description: string; parameters: unknown } }[] {
    return this.ordered.map((t) => ({
      type: "function",
      function: { name: t.name, description: t.description, parameters: t.inputSchema },
    }));
  }

  /** Anthropic `tools` entries. */
  toAnthropic(): { name: string; description: string; input_schema: unknown }[] {
    return this.ordered.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema }));
  }

  /**
   * The skills catalog for the system prompt (the loop appends it to `systemPrompt`): the
   * described skills, or "No skills are currently available."; "" for a toolkit made without skill roots.
   */
  skillsPrompt(): string {
    return this.skillSet ? skillsCatalog(this.skillSet) : "";
  }

  /** The skills this toolkit loads (empty without skill roots). */
  skills(): readonly SkillInfo[] {
    return this.skillSet ?? [];
  }
}

/** Throws a TypeError naming the first name two of the caller's tools share (the second would be dropped silently). */
function duplicateGuard(tools: readonly Tool[]): void {
  const seen = new Set<string>();
  for (const t of tools) {
    if (seen.has(t.name)) throw new TypeError(`createToolkit: two tools share the name "${t.name}" — tool names must be unique`);
    seen.add(t.name);
  }
}

/**
 * Builds the toolkit a run declares and executes. User tools shadow built-ins of the same name.
 * Rejects with a TypeError when two user tools share a name, and on a relay/built-in name clash.
 */
export async function createToolkit(options: ToolkitOptions = {}): Promise<Toolkit> {
  checkToolkitOptions(options);
  const tools = [...(options.tools ?? [])];
  duplicateGuard(tools);
  collisionGuard(tools);
  if (options.skills) await loadYamlParser();
  const skills = options.skills ? listSkills(options.skills).skills : undefined;
  // after the caller's tools (which may shadow it), before the built-ins: toolnexus's precedence
  if (skills) tools.push(skillTool(skills));
  if (options.builtins) {
    // Imported here: the built-ins bring node:child_process, node:fs/promises and a dozen modules
    // that an app without them should not load with relaytrace.
    const { builtinTools, Workspace } = await import("./builtins/index.js");
    tools.push(...builtinTools(options.builtins === true ? true : options.builtins, new Workspace(options.workdir ?? process.cwd())));
  }
  return new Toolkit(tools, skills);
}
