// Child process for the cross-process writer tests: opens an ATOF file sink on a path through the
// BUILT package and keeps writing a line every 10 ms. Prints "refused: <message>" and exits 3 when
// the sink is refused. SIGTERM: shuts the exporter down and exits. `then` is what follows the
// first flushed lines: "hold" (keep writing), "exit" (process.exit at once, lines still held), or
// "shutdown" (shut down, print "shut down", stay alive until killed).
import { AtofExporter } from "../../dist/exporters/atof/index.js";

const [path, mode, tag, then] = process.argv.slice(2);
let exporter;
try {
  exporter = new AtofExporter({ type: "file", path, mode });
} catch (error) {
  process.stdout.write(`refused: ${error.message}\n`);
  process.exit(3);
}
let n = 0;
const write = () => {
  exporter.onEvent({
    kind: "mark",
    atof_version: "0.1",
    uuid: `${tag}-${n}`,
    parent_uuid: null,
    timestamp: 1772366400000000 + n,
    name: "writer",
    category: null,
    category_profile: null,
    data: { tag, n },
    data_schema: null,
    metadata: null,
  });
  n++;
};
for (let i = 0; i < 3; i++) write();
await exporter.forceFlush();
if (then === "exit") {
  write();
  process.exit(0);
}
if (then === "shutdown") {
  await exporter.shutdown();
  process.stdout.write("shut down\n");
  setInterval(() => {}, 60_000);
} else {
  const timer = setInterval(write, 10);
  process.on("SIGTERM", () => {
    clearInterval(timer);
    void exporter.shutdown().then(() => process.exit(0));
  });
  process.stdout.write("ready\n");
}
