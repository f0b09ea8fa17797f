// Child process for the rotation kill tests: writes ATOF events through the BUILT package into a
// rotating file set (`rotate.maxBytes` small, lines of ~2 KB) in DIR, forever.
// `stop` is where it waits to be killed:
//   "mid-rotation": the injected clock sees the sink between two files (the current file closed
//     and its claim given up, the next not yet named): prints "mid-rotation <closed file>" and
//     blocks there, inside the rotation, until killed;
//   "writing": prints "rotated" once three files exist and keeps writing until killed.
import { existsSync, readdirSync, writeSync } from "node:fs";
import { AtofExporter } from "../../dist/exporters/atof/index.js";

const [dir, stop] = process.argv.slice(2);
let exporter;
let rotations = 0;
const now = () => {
  const current = exporter?.filePath;
  if (current !== undefined && existsSync(current) && !existsSync(`${current}.lock`)) {
    rotations++;
    if (stop === "mid-rotation" && rotations === 3) {
      writeSync(1, `mid-rotation ${current}\n`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0); // blocks inside the rotation
    }
  }
  return Date.now();
};
exporter = new AtofExporter({ type: "file", outputDirectory: dir, rotate: { maxBytes: 16 * 1024 } }, { now });
const padding = "p".repeat(2000);
let n = 0;
let announced = false;
for (;;) {
  for (let i = 0; i < 5; i++) {
    exporter.onEvent({
      kind: "mark",
      atof_version: "0.1",
      uuid: `e-${n}`,
      parent_uuid: null,
      timestamp: 1772366400000000 + n,
      name: "writer",
      category: null,
      category_profile: null,
      data: { n, padding },
      data_schema: null,
      metadata: null,
    });
    n++;
  }
  await new Promise((resolve) => setImmediate(resolve));
  if (!announced && stop === "writing" && readdirSync(dir).filter((f) => f.endsWith(".jsonl")).length >= 3) {
    announced = true;
    writeSync(1, "rotated\n");
  }
}
