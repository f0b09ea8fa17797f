// Child process for the torn-line test: tool calls with 8 MB results through the BUILT package's
// ATOF file sink. Once the first lines are on disk it prints "ready", then makes the next large
// write stop half-way: it writes the first half of the bytes, prints "inside-write" and blocks for
// good, so the parent's SIGKILL always lands inside a write (never after one that happened to finish).
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { createRuntime } from "../../dist/src/runtime/runtime.js";
import { AtofExporter } from "../../dist/exporters/atof/index.js";

const [atofPath] = process.argv.slice(2);
const runtime = createRuntime();
new AtofExporter({ type: "file", path: atofPath }).register(runtime);
const big = "r".repeat(8 * 1024 * 1024);

function stallInsideTheNextLargeWrite() {
  const realWriteSync = fs.writeSync;
  fs.writeSync = function writeHalfThenBlock(fd, buffer, offset, length, position) {
    const size = typeof buffer === "string" ? buffer.length : (length ?? buffer.byteLength - (offset ?? 0));
    if (fd > 2 && typeof buffer !== "string" && size > 1024 * 1024) {
      realWriteSync(fd, buffer, offset ?? 0, Math.floor(size / 2));
      realWriteSync(1, "inside-write\n");
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0); // until the parent kills us
    }
    return realWriteSync.call(fs, fd, buffer, offset, length, position);
  };
  // The sink imported writeSync by name: this makes its binding see the replacement.
  syncBuiltinESMExports();
}

for (let call = 0; ; call++) {
  await runtime.executeTool("fetch_page", { call }, () => ({ result: { call, body: big } }), { toolCallId: `call-${call}` });
  if (call === 1) {
    await runtime.forceFlush();
    process.stdout.write("ready\n");
    stallInsideTheNextLargeWrite();
  }
  await new Promise((r) => setImmediate(r));
}
