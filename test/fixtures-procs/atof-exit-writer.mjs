// Child process for the process.exit() test: hands events to the ATOF file sink and exits in the
// same turn of the event loop, before any batched write could run.
import { AtofExporter } from "../../dist/exporters/atof/index.js";

const [atofPath, count] = process.argv.slice(2);
const exporter = new AtofExporter({ type: "file", path: atofPath });
for (let i = 0; i < Number(count); i++) {
  exporter.onEvent({
    kind: "mark", atof_version: "0.1", uuid: `m${i}`, parent_uuid: null, timestamp: 1772366400000000 + i,
    name: "exit-test", category: null, category_profile: null, data: { i }, data_schema: null, metadata: null,
  });
}
process.exit(0);
