// What the README says to do until relaytrace is on the registry: `npm pack` in the clone, then
// install the tarball into a fresh app, import it by name and run it.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ROOT } from "../support/doc-blocks.js";
import { filesIn, RECORDING_APP } from "../support/register-app.js";

function run(file: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(file, args, { cwd, env, timeout: 240_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr }),
    ),
  );
}

const npm = existsSync(join(dirname(process.execPath), "npm")) ? join(dirname(process.execPath), "npm") : "npm";
let work: string;
/** The fresh app the first test installs the tarball into. */
let installedApp: string | undefined;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "relaytrace-from-clone-"));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

it(
  "a tarball from `npm pack` installs into a fresh app, whose `node --import relaytrace/register` records its run",
  { timeout: 300_000 },
  async () => {
    // `npm test` has built dist/ already; `npm pack` alone would build it first (prepack).
    const pack = await run(npm, ["pack", "--ignore-scripts", "--pack-destination", work], ROOT);
    expect(pack.code).toBe(0);
    const [tarball] = (await readdir(work)).filter((n) => /^relaytrace-.*\.tgz$/.test(n));
    expect(tarball).toBeDefined();

    const app = join(work, "app");
    await mkdir(app);
    await writeFile(join(app, "package.json"), JSON.stringify({ name: "fresh-app", version: "1.0.0", type: "module", private: true }));
    await writeFile(join(app, "app.js"), RECORDING_APP);
    const install = await run(npm, ["install", "--prefer-offline", "--no-audit", "--no-fund", join(work, tarball!)], app);
    expect({ code: install.code, stderr: install.stderr }).toMatchObject({ code: 0 });
    installedApp = app;

    const env = { PATH: `${dirname(process.execPath)}:${process.env["PATH"] ?? ""}`, HOME: app, RELAYTRACE_ATOF_DIR: "traces" };
    const result = await run(process.execPath, ["--import", "relaytrace/register", "app.js"], app, env);
    expect(result).toEqual({ code: 0, stdout: "app done\n", stderr: "" });
    const [file] = await filesIn(join(app, "traces"));
    expect(file!.text.split("\n").filter((l) => l !== "")).toHaveLength(6);
  },
);

// Lists the relaytrace files Node loads for `import "relaytrace"` and `import "relaytrace/exporters"`,
// and the targets Node resolves for the package's `imports` entries.
const LOADED_FILES = `
import { readFileSync } from "node:fs";
import { registerHooks } from "node:module";
const loaded = [];
registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context); } });
await import("relaytrace");
await import("relaytrace/exporters");
const files = loaded.filter((u) => u.includes("/node_modules/relaytrace/")).map((u) => u.split("/node_modules/relaytrace/")[1]);
const manifest = JSON.parse(readFileSync("node_modules/relaytrace/package.json", "utf8"));
const importTargets = Object.values(manifest.imports).map((t) => (t.node ?? t.default).replace(/^\\.\\//, ""));
console.log(JSON.stringify({ files, importTargets }));
`;

it(
  "imports its entry points as bundled files: a few shared chunks instead of the build's hundreds of modules",
  { timeout: 60_000 },
  async () => {
    expect(installedApp).toBeDefined();
    await writeFile(join(installedApp!, "loaded-files.mjs"), LOADED_FILES);
    const result = await run(process.execPath, ["loaded-files.mjs"], installedApp!);
    expect(result.stderr).toBe("");
    const { files, importTargets } = JSON.parse(result.stdout) as { files: string[]; importTargets: string[] };
    expect(files).toContain("dist/pkg/src/index.js");
    expect(files).toContain("dist/pkg/exporters/index.js");
    // Besides the bundled entries and their chunks, only targets of the package.json imports field load (leaf modules).
    const others = files.filter((f) => !f.startsWith("dist/pkg/"));
    expect(others.length).toBeGreaterThan(0);
    expect(others.filter((f) => !importTargets.includes(f))).toEqual([]);
    expect(files.length).toBeLessThan(40);
  },
);
