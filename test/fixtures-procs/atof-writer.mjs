// Child process for the SIGKILL test: runs agent-shaped traces forever, writing ATOF and ATIF
// through the BUILT package, and prints "ready" once a few runs have completed and been written.
import { createRuntime } from "../../dist/src/runtime/runtime.js";
import { AtofExporter } from "../../dist/exporters/atof/index.js";
import { AtifExporter } from "../../dist/exporters/atif/index.js";

const [atofPath, atifDir] = process.argv.slice(2);
const runtime = createRuntime();
new AtofExporter({ type: "file", path: atofPath }).register(runtime);
const atif = new AtifExporter({ agent: { name: "killed", version: "1" }, outputDirectory: atifDir });
atif.register(runtime);

const padding = "p".repeat(2000); // long lines make a kill inside a write more likely
let announced = false;
for (let run = 0; ; run++) {
  await runtime.withScope(
    `run-${run}`,
    async () => {
      const reply = await runtime.executeLlm(
        "openai.chat_completions",
        { headers: {}, content: { model: "m", messages: [{ role: "user", content: `q${run} ${padding}` }] } },
        () => ({
          model: "m",
          choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: `a${run}` } }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
        { modelName: "m" },
      );
      await runtime.executeTool("echo", { run, padding }, (args) => ({ result: args }), { toolCallId: `call-${run}` });
      return reply;
    },
    { category: "agent", input: { run } },
  );
  if (!announced && run >= 3) {
    await runtime.forceFlush();
    if (atif.files().length >= 3) {
      announced = true;
      process.stdout.write("ready\n");
    }
  }
  if (run % 20 === 0) await new Promise((r) => setImmediate(r));
}
