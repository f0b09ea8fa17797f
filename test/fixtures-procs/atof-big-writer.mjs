// Child process for the torn-line test: tool calls with 8 MB results, forever, through the BUILT
// package's ATOF file sink; prints "ready" once the first lines are on disk.
import { createRuntime } from "../../dist/src/runtime/runtime.js";
import { AtofExporter } from "../../dist/exporters/atof/index.js";

const [atofPath] = process.argv.slice(2);
const runtime = createRuntime();
new AtofExporter({ type: "file", path: atofPath }).register(runtime);
const big = "r".repeat(8 * 1024 * 1024);
for (let call = 0; ; call++) {
  await runtime.executeTool("fetch_page", { call }, () => ({ result: { call, body: big } }), { toolCallId: `call-${call}` });
  if (call === 1) {
    await runtime.forceFlush();
    process.stdout.write("ready\n");
  }
  await new Promise((r) => setImmediate(r));
}
