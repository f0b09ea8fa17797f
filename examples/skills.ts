// Skills: a directory of SKILL.md files becomes a catalog in the system prompt and one `skill`
// tool; the model loads a skill's instructions (and the list of its files) only when it needs it.
import { fileURLToPath, pathToFileURL } from "node:url";
import { createClient, createRuntime, createToolkit } from "relaytrace";
import type { AtofEvent, RunResult } from "relaytrace";
import { EventCapture, startScriptedProvider } from "relaytrace/testing";

export interface SkillsResult {
  result: RunResult;
  /** The system prompt the model received. */
  systemPrompt: string;
  events: AtofEvent[];
}

export const SKILLS_DIR = fileURLToPath(new URL("./skills/", import.meta.url));

export async function main(): Promise<SkillsResult> {
  const model = await startScriptedProvider({
    turns: [{ toolCalls: [{ id: "c1", name: "skill", arguments: { name: "release-notes" } }] }, { text: "## Added\n- Typed tools" }],
  });
  const runtime = createRuntime();
  const capture = new EventCapture();
  capture.register(runtime);
  try {
    const toolkit = await createToolkit({ skills: [SKILLS_DIR] });
    const client = createClient({
      baseUrl: model.url,
      style: "openai",
      model: "stub",
      apiKey: "k",
      runtime,
      systemPrompt: "You write for end users.",
    });
    const result = await client.run("Release notes for: typed tools", { toolkit });
    await runtime.flush();
    console.log(result.toolCalls[0]?.output.split("\n").slice(0, 2).join("\n"));
    const first = model.requests[0]?.body as { messages: { role: string; content: string }[] } | undefined;
    return { result, systemPrompt: first?.messages[0]?.content ?? "", events: capture.events };
  } finally {
    await runtime.shutdown();
    await model.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
