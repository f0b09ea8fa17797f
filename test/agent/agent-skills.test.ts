import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createToolkit, listSkills, SKILL_TOOL_DESCRIPTION } from "../../src/agent/index.js";

let root: string;
let outOfTree: string;

async function skill(dir: string, frontMatter: string, body: string, files: Record<string, string> = {}): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "SKILL.md"), `---\n${frontMatter}\n---\n${body}`);
  for (const [name, text] of Object.entries(files)) {
    await mkdir(join(dir, name, ".."), { recursive: true });
    await writeFile(join(dir, name), text);
  }
}

beforeAll(async () => {
  const base = await mkdtemp(join(tmpdir(), "relaytrace-skills-"));
  root = join(base, "skills");
  outOfTree = join(base, "elsewhere");
  await skill(join(root, "pdf"), "name: pdf\ndescription: >\n  Fill and merge\n  PDF forms.\n", "\n# PDF\n\nUse scripts/fill.py.\n\n", {
    "scripts/fill.py": "print(1)\n",
    "reference/forms.md": "# forms\n",
  });
  await skill(join(root, "nested", "deep", "csv"), "name: csv\ndescription: 'Clean CSV files: quotes, \"escapes\"'", "Trim every cell.");
  await skill(join(root, "quiet"), "name: quiet", "No description: loadable, not advertised.");
  await skill(join(root, "nameless"), "description: has no name", "skipped");
  await skill(join(root, "broken"), "name: [unclosed", "skipped");
  await skill(join(root, "zz-dup"), "name: pdf\ndescription: a second pdf", "loses to the first");
  await skill(join(outOfTree, "linked"), "name: linked\ndescription: found through a symlinked directory", "Linked body.");
  await symlink(outOfTree, join(root, "link"));
  await symlink(root, join(root, "nested", "cycle")); // a loop back to the root: walked once
});
afterAll(async () => {
  await rm(join(root, ".."), { recursive: true, force: true });
});

describe("skill discovery", () => {
  it("globs **/SKILL.md (following symlinked directories, cycles walked once) and reports every skipped file", () => {
    const { skills, skipped } = listSkills([root]);
    expect(skills.map((s) => s.name).sort()).toEqual(["csv", "linked", "pdf", "quiet"]);
    const pdf = skills.find((s) => s.name === "pdf")!;
    // folded YAML scalars resolve and are trimmed
    expect(pdf.description).toBe("Fill and merge PDF forms.");
    expect(pdf.location).toBe(join(root, "pdf", "SKILL.md"));
    expect(skills.find((s) => s.name === "csv")!.description).toBe('Clean CSV files: quotes, "escapes"');
    expect(skipped.map((s) => [s.location.slice(root.length), s.reason]).sort()).toEqual([
      ["/broken/SKILL.md", "malformed-frontmatter"],
      ["/nameless/SKILL.md", "missing-name"],
      ["/zz-dup/SKILL.md", "duplicate-name"],
    ]);
  });

  it("skillsPrompt lists the described skills, sorted, under toolnexus's preamble; a toolkit without skill roots adds nothing", async () => {
    const tk = await createToolkit({ skills: [root] });
    expect(tk.skillsPrompt()).toBe(
      [
        "Skills provide specialized instructions and workflows for specific tasks.",
        "Use the skill tool to load a skill when a task matches its description.",
        "",
        "## Available Skills",
        '- **csv**: Clean CSV files: quotes, "escapes"',
        "- **linked**: found through a symlinked directory",
        "- **pdf**: Fill and merge PDF forms.",
      ].join("\n"),
    );
    expect((await createToolkit({ skills: [join(root, "quiet")] })).skillsPrompt()).toBe("No skills are currently available.");
    expect((await createToolkit({})).skillsPrompt()).toBe("");
    expect((await createToolkit({})).get("skill")).toBeUndefined();
  });
});

describe("the skill tool", () => {
  it("declares toolnexus's schema and loader description", async () => {
    const tool = (await createToolkit({ skills: [root] })).get("skill")!;
    expect(tool.source).toBe("skill");
    expect(tool.description).toBe(SKILL_TOOL_DESCRIPTION);
    expect(tool.inputSchema).toEqual({
      type: "object",
      properties: { name: { type: "string", description: "The name of the skill to load" } },
      required: ["name"],
      additionalProperties: false,
    });
  });

  it("loads one skill: its trimmed body, base directory and sampled files, in toolnexus's format", async () => {
    const tk = await createToolkit({ skills: [root] });
    const dir = join(root, "pdf");
    const r = await tk.execute("skill", { name: "pdf" });
    expect(r.isError).toBe(false);
    expect(r.output).toBe(
      [
        '<skill_content name="pdf">',
        "# Skill: pdf",
        "",
        "# PDF\n\nUse scripts/fill.py.",
        "",
        `Base directory for this skill: ${pathToFileURL(dir).href}`,
        "Relative paths in this skill (e.g., scripts/, reference/) are relative to this base directory.",
        "Note: file list is sampled.",
        "",
        "<skill_files>",
        `<file>${join(dir, "reference", "forms.md")}</file>\n<file>${join(dir, "scripts", "fill.py")}</file>`,
        "</skill_files>",
        "</skill_content>",
      ].join("\n"),
    );
    expect((await tk.execute("skill", { name: "quiet" })).output).toContain("No description: loadable, not advertised.");
  });

  it("an unknown name is an error result listing the available skills", async () => {
    const tk = await createToolkit({ skills: [root] });
    expect(await tk.execute("skill", { name: "nope" })).toEqual({
      output: 'Skill "nope" not found. Available skills: csv, linked, pdf, quiet',
      isError: true,
    });
  });

  it("samples at most ten files", async () => {
    const many = join(root, "..", "many");
    await skill(
      many,
      "name: many\ndescription: d",
      "x",
      Object.fromEntries(Array.from({ length: 14 }, (_, i) => [`f${String(i).padStart(2, "0")}.txt`, "x"])),
    );
    const r = await (await createToolkit({ skills: [many] })).execute("skill", { name: "many" });
    expect(r.output.match(/<file>/g)).toHaveLength(10);
  });
});
