// Child process for the process.exit() test: hands events to the ATOF file sink and exits in the
// same turn of the event loop, before any batched write could run. With a third argument, that
// many more events are handed over by an 'exit' listener registered after the sink's own (as a
// runtime draining its queue at exit would).
import { AtofExporter } from "../../dist/exporters/atof/index.js";

const [atofPath, count, late = "0"] = process.argv.slice(2);
const exporter = new AtofExporter({ type: "file", path: atofPath });
const mark = (uuid, i) =>
  exporter.onEvent({
    kind: "mark",
    atof_version: "0.1",
    uuid,
    parent_uuid: null,
    timestamp: 1772366400000000 + i,
    name: "exit-test",
    category: null,
    category_profile: null,
    data: { i },
    data_schema: null,
    metadata: null,
  });
for (let i = 0; i < Number(count); i++) mark(`m${i}`, i);
process.on("exit", () => {
  for (let i = 0; i < Number(late); i++) mark(`late${i}`, i);
});
process.exit(0);
