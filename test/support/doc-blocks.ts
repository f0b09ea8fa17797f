import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The code blocks of the README and of the guides in `docs/`, with the check each one is marked
 * for by the line `<!-- readme-test: KIND -->` right above it. The CHANGELOG is history, never read.
 */

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

export interface DocBlock {
  /** the document, relative to the repository: `README.md`, `docs/opentelemetry.md` */
  file: string;
  /** the marker's KIND, or `UNMARKED` */
  kind: string;
  lang: string;
  code: string;
  /** the line of the opening fence, 1-based */
  line: number;
}

/** The README first, then every `docs/*.md` guide in name order. */
export async function documentedFiles(): Promise<string[]> {
  const guides = (await readdir(join(ROOT, "docs"))).filter((name) => name.endsWith(".md")).sort();
  return ["README.md", ...guides.map((name) => `docs/${name}`)];
}

/** Every fenced block of one document, marked or not. */
export function blocksOf(file: string, text: string): DocBlock[] {
  const blocks: DocBlock[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const marker = /^<!-- readme-test: ([\w-]+) -->$/.exec(lines[i - 1] ?? "");
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i] !== "```"; i++) body.push(lines[i]!);
    blocks.push({ file, kind: marker?.[1] ?? "UNMARKED", lang: open[1]!, code: body.join("\n"), line: start + 1 });
  }
  return blocks;
}

/** The blocks of the README and every guide, in document order. */
export async function documentedBlocks(): Promise<DocBlock[]> {
  const blocks: DocBlock[] = [];
  for (const file of await documentedFiles()) blocks.push(...blocksOf(file, await readFile(join(ROOT, file), "utf8")));
  return blocks;
}

/** The command lines of the one block marked `interop-NAME`, wherever it is documented. */
export async function interopCommands(name: string): Promise<{ file: string; lines: string[] }> {
  const found = (await documentedBlocks()).filter((b) => b.kind === `interop-${name}`);
  if (found.length !== 1 || found[0]!.lang !== "sh") {
    throw new Error(`expected one sh block marked interop-${name} in the README or docs/, found ${found.length}`);
  }
  return { file: found[0]!.file, lines: found[0]!.code.split("\n") };
}
