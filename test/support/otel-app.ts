// relaytrace inside an app on OpenTelemetry JS, installed as a user installs it. The peer-version
// matrix (test/interop/tools/peer-matrix.sh) installs the app's packages once, apart from this
// repository (RELAYTRACE_OTEL_APP), and packs relaytrace (RELAYTRACE_TARBALL). Each suite copies the
// app, adds the packed relaytrace with a plain `npm install` (no flags), and runs the app's own
// programs (test/peers/apps) there with plain Node, so every import resolves as in the app.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const APP_FILES = join(ROOT, "test/peers/apps");

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface OtelApp {
  /** The app's copy with relaytrace installed. */
  dir: string;
  /** The prepared app it was copied from (never changed). */
  source: string;
  /** What `npm install <relaytrace tarball>` printed (stdout and stderr). */
  npmOutput: string;
}

function run(file: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd, env, timeout: 110_000, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
      resolve({ code, stdout, stderr });
    });
  });
}

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: test/interop/tools/peer-matrix.sh prepares the app and the packed relaytrace`);
  return value;
}

/** The npm that comes with the running Node (its own bin folder), else the one on PATH. */
function npmBin(): string {
  const beside = join(dirname(process.execPath), "npm");
  return existsSync(beside) ? beside : "npm";
}

function npm(args: readonly string[], cwd: string): Promise<RunResult> {
  return run(npmBin(), args, cwd);
}

/** A fresh copy of the prepared app, with the app programs beside its package.json and relaytrace installed. */
export async function installRelaytraceIntoApp(): Promise<OtelApp> {
  const source = requiredEnv("RELAYTRACE_OTEL_APP");
  const tarball = requiredEnv("RELAYTRACE_TARBALL");
  const dir = await mkdtemp(join(tmpdir(), "relaytrace-otel-app-"));
  const copied = await run("cp", ["-a", `${source}/.`, dir], ROOT);
  if (copied.code !== 0) throw new Error(`copying the app failed: ${copied.stderr}`);
  await cp(APP_FILES, dir, { recursive: true });
  const installed = await npm(["install", tarball], dir);
  const npmOutput = installed.stdout + installed.stderr;
  if (installed.code !== 0) throw new Error(`npm install of relaytrace into the app failed:\n${npmOutput}`);
  return { dir, source, npmOutput };
}

export async function removeApp(app: OtelApp | undefined): Promise<void> {
  if (app) await rm(app.dir, { recursive: true, force: true });
}

/**
 * npm's warnings and errors in the install's output. npm 11 also lists packages whose install
 * scripts it did not run; such a notice counts only when it names a package relaytrace brought
 * (one the app already had is the app's own, listed on every install).
 */
export async function npmWarnings(app: OtelApp): Promise<string[]> {
  const lines = app.npmOutput.split("\n").filter((line) => /^npm (warn|WARN|error|ERR!)/.test(line));
  const notices = lines.filter((line) => /^npm warn install-scripts\b/.test(line));
  const named = notices.flatMap((line) => [...line.matchAll(/^npm warn install-scripts\s+(\S+)@(\S+) \(/g)].map((m) => `${m[1]}@${m[2]}`));
  const before = (await npm(["ls", "--all", "--parseable", "--long"], app.source)).stdout;
  const newlyNamed = named.filter((pkg) => !before.split("\n").some((line) => line.endsWith(`:${pkg}`)));
  return [
    ...lines.filter((line) => !notices.includes(line)),
    ...newlyNamed.map((pkg) => `install scripts of ${pkg}, which relaytrace brought`),
  ];
}

/** The folders of every @opentelemetry/api copy in the app's tree. */
export async function apiCopies(app: OtelApp): Promise<string[]> {
  const { stdout } = await npm(["ls", "@opentelemetry/api", "--all", "--parseable"], app.dir);
  return [...new Set(stdout.split("\n").filter((line) => line.endsWith("@opentelemetry/api")))].map((path) =>
    path.slice(app.dir.length + 1),
  );
}

/** OpenTelemetry packages npm installed for relaytrace alone (under its own node_modules) instead of sharing the app's. */
export async function ownOpenTelemetryPackages(app: OtelApp): Promise<string[]> {
  try {
    return await readdir(join(app.dir, "node_modules/relaytrace/node_modules/@opentelemetry"));
  } catch {
    return [];
  }
}

/** Runs `node PROGRAM SCENARIO` in the app (a program of test/peers/apps) and parses the JSON line it prints. */
export async function runAppScenario<T>(app: OtelApp, program: string, scenario: string, env: Record<string, string> = {}): Promise<T> {
  const { code, stdout, stderr } = await run(process.execPath, [program, scenario], app.dir, { ...process.env, ...env });
  if (code !== 0) throw new Error(`${program} ${scenario} exited ${code}:\n${stderr}`);
  return JSON.parse(stdout.trim().split("\n").at(-1) ?? "") as T;
}

/**
 * tsc --strict over one of the app's TypeScript files, inside the app: its own @types/node and
 * OpenTelemetry types, and relaytrace's published declarations (checked too: no skipLibCheck).
 * Returns tsc's output; empty means it type-checked.
 */
export async function typeCheckInApp(app: OtelApp, file: string): Promise<string> {
  const config = {
    compilerOptions: {
      strict: true,
      module: "nodenext",
      moduleResolution: "nodenext",
      target: "es2022",
      types: ["node"],
      noEmit: true,
      skipLibCheck: false,
    },
    files: [file],
  };
  await writeFile(join(app.dir, "tsconfig.json"), JSON.stringify(config));
  const { stdout, stderr } = await run(process.execPath, [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], app.dir);
  return stdout + stderr;
}
