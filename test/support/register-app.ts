import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startNode, type Child } from "./child-process.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** An app folder of its own, where `relaytrace` (this checkout, built) and any other package resolve by name. */
export interface RegisterApp {
  dir: string;
  /** Runs `node --import relaytrace/register <script> ...args` in the app folder with exactly `env` (plus PATH and HOME). */
  start(script: string, env?: Record<string, string>, args?: string[]): Child;
  remove(): Promise<void>;
}

/**
 * Makes an app folder with a package.json (`shop-agent` 1.2.3), `node_modules/relaytrace` linked to
 * this checkout, `links` (package name → folder under this checkout's node_modules, e.g. `ai` →
 * `ai7`) and `files` (name → source).
 */
export async function makeRegisterApp(files: Record<string, string>, links: Record<string, string> = {}): Promise<RegisterApp> {
  const dir = await mkdtemp(join(tmpdir(), "relaytrace-register-app-"));
  await writeFile(join(dir, "package.json"), JSON.stringify({ name: "shop-agent", version: "1.2.3", type: "module", private: true }));
  await mkdir(join(dir, "node_modules", "@ai-sdk"), { recursive: true });
  await symlink(ROOT, join(dir, "node_modules", "relaytrace"), "dir");
  for (const [name, target] of Object.entries(links))
    await symlink(join(ROOT, "node_modules", target), join(dir, "node_modules", name), "dir");
  for (const [name, source] of Object.entries(files)) await writeFile(join(dir, name), source);
  return {
    dir,
    start(script, env = {}, args = []) {
      // Only what the test gives: the variables of the shell running the tests must not leak in.
      const childEnv: NodeJS.ProcessEnv = { PATH: process.env["PATH"] ?? "", HOME: process.env["HOME"] ?? dir, ...env };
      return startNode(script, args, { nodeArgs: ["--import", "relaytrace/register"], cwd: dir, env: childEnv });
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/** The text of every file in `dir` (none when it does not exist). */
export async function filesIn(dir: string): Promise<{ name: string; text: string }[]> {
  let names: string[];
  try {
    names = (await readdir(dir)).sort();
  } catch {
    return [];
  }
  return Promise.all(names.map(async (name) => ({ name, text: await readFile(join(dir, name), "utf8") })));
}

/**
 * An app that records one agent run on the default runtime: an LLM call and a tool call carrying
 * secrets (`SECRET-PROMPT`, `SECRET-REPLY`, `SECRET-ARG`, `SECRET-RESULT`, an e-mail address).
 * With the argument `wait` it then prints `ready` and stays alive until a signal; with
 * `own-handler` too, its own SIGTERM/SIGINT handler prints `app handler` each time, and at the
 * second signal records one more tool call (`after-signal`) and lets the process end.
 */
export const RECORDING_APP = `
import { defaultRuntime } from "relaytrace";
const runtime = defaultRuntime();
await runtime.withScope("support-run", async () => {
  await runtime.executeLlm(
    "chat",
    { content: { model: "gpt-x", messages: [{ role: "user", content: "SECRET-PROMPT" }] } },
    async () => ({
      model: "gpt-x",
      choices: [{ index: 0, message: { role: "assistant", content: "SECRET-REPLY" }, finish_reason: "stop" }],
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
    }),
    { modelName: "gpt-x", dataSchema: { name: "openai/chat-completions", version: "1" } },
  );
  await runtime.executeTool("lookup", { email: "ada@example.com", q: "SECRET-ARG" }, async () => ({ result: { note: "SECRET-RESULT" } }), { toolCallId: "call_1" });
}, { category: "agent" });
console.log("app done");
if (process.argv.includes("wait")) {
  const keepAlive = setInterval(() => {}, 60_000);
  if (process.argv.includes("own-handler")) {
    let calls = 0;
    const stop = async (signal) => {
      console.log("app handler " + signal);
      if (++calls < 2) return;
      // the app went on after the first signal: what it records now must still be exported
      await runtime.executeTool("after-signal", {}, async () => ({ result: null }));
      clearInterval(keepAlive);
    };
    process.on("SIGTERM", stop);
    process.on("SIGINT", stop);
  }
  console.log("ready");
}
`;
