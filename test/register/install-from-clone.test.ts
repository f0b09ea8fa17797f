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

    const env = { PATH: `${dirname(process.execPath)}:${process.env["PATH"] ?? ""}`, HOME: app, RELAYTRACE_ATOF_DIR: "traces" };
    const result = await run(process.execPath, ["--import", "relaytrace/register", "app.js"], app, env);
    expect(result).toEqual({ code: 0, stdout: "app done\n", stderr: "" });
    const [file] = await filesIn(join(app, "traces"));
    expect(file!.text.split("\n").filter((l) => l !== "")).toHaveLength(6);
  },
);
