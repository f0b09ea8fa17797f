import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { afterAll, expect } from "vitest";
import { natTrajectoryProblems } from "./nat-trajectory.js";

/**
 * Setup file: every ATIF document relaytrace's code writes to disk in this process (through
 * `fs.writeFile`, `fs.promises.writeFile` or `fs.writeFileSync`: the exporter, the CLI, examples)
 * is collected and, when the test file ends, checked against NAT's Trajectory rules (see
 * nat-trajectory.ts). A test file that makes relaytrace write an ATIF document NAT would reject
 * fails. Writes made by test code itself (a deliberately broken fixture) are not audited.
 */

const written: { path: string; doc: unknown; text: string }[] = [];

/** The file of the first stack frame outside this module: who asked for the write. */
function writerFile(): string {
  const frames = (new Error().stack ?? "").split("\n").slice(1);
  const outside = frames.find((f) => !f.includes("atif-file-audit"));
  return outside ?? "";
}

function collect(path: unknown, data: unknown): void {
  if (/[\\/]test[\\/](?:[^\\/]+[\\/])?[^\\/]*\.test\.ts/.test(writerFile())) return;
  let text: string;
  if (typeof data === "string") text = data;
  else if (data instanceof Uint8Array) text = Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("utf8");
  else return;
  if (!text.includes('"schema_version"') || !text.includes("ATIF-v")) return;
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return; // not a JSON document (an ATOF line, a log): not ours to judge here
  }
  // A JSON array of trajectories is itself something NAT's loader rejects: audit it as one document.
  if (
    typeof doc === "object" &&
    doc !== null &&
    (Array.isArray(doc) || typeof (doc as { schema_version?: unknown }).schema_version === "string")
  ) {
    written.push({ path: String(path), doc, text });
  }
}

const promises = fs.promises;
const originalAsync = promises.writeFile;
const originalSync = fs.writeFileSync;
const originalCallback = fs.writeFile;
promises.writeFile = (async (
  file: Parameters<typeof originalAsync>[0],
  data: Parameters<typeof originalAsync>[1],
  options?: Parameters<typeof originalAsync>[2],
) => {
  collect(file, data);
  return originalAsync(file, data, options);
}) as typeof originalAsync;
fs.writeFileSync = ((
  file: Parameters<typeof originalSync>[0],
  data: Parameters<typeof originalSync>[1],
  options?: Parameters<typeof originalSync>[2],
) => {
  collect(file, data);
  return originalSync(file, data, options);
}) as typeof originalSync;
fs.writeFile = ((file: unknown, data: unknown, ...rest: unknown[]) => {
  collect(file, data);
  return (originalCallback as (...a: unknown[]) => void)(file, data, ...rest);
}) as typeof originalCallback;
// ESM named imports of node:fs and node:fs/promises see the wrapped functions too.
syncBuiltinESMExports();

afterAll(() => {
  if (written.length === 0) return;
  const problems = natTrajectoryProblems(
    written.map((w) => w.doc),
    written.map((w) => w.text),
  );
  expect(problems, `ATIF documents written by this test file that NAT would reject (${written.map((w) => w.path).join(", ")})`).toEqual([]);
});
