import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validateAtif } from "../exporters/atif/validate.js";
import { serializeEvent } from "../src/events/atof-serialize.js";
import { parseAtofLine } from "../src/events/atof-parse.js";
import { blocksOf, documentedBlocks, interopCommands, ROOT, type DocBlock } from "./support/doc-blocks.js";
import { decodeOtlp, signalOfPath } from "./support/otlp.js";

/**
 * Every marked code block of the README and of the guides in docs/ is checked here, so the docs
 * cannot drift from the code: TypeScript blocks are type-checked and run as a user would run them,
 * shell blocks are run, and sample output blocks are compared with real output. Every README block
 * is marked; a guide may also show unmarked blocks (one that needs an API key, say), which are not run.
 */
const CLI = join(ROOT, "dist/src/cli/main.js");
const BLOCK_DIR = join(ROOT, ".readme-blocks");
// Resolved from the repository, not from the temp directory the blocks run in.
const TSX = pathToFileURL(join(ROOT, "node_modules/tsx/dist/loader.mjs")).href;

/** How many blocks of each kind are checked, at least: moving text between documents must not drop one. */
const CHECKED_AT_LEAST: Record<string, number> = {
  run: 12,
  shell: 1,
  "shell-cli": 2,
  "demo-tree": 1,
  "atof-line": 1,
  atif: 1,
  "interop-jaeger": 1,
  "interop-collector": 1,
  "interop-phoenix": 1,
};
const CHECKED_TOTAL_AT_LEAST = 21;
// `run-ai7` blocks need `ai` 7, which this repository installs as `ai7`: the ai 7 telemetry test runs them.
// `worker` blocks are Cloudflare Worker modules: type-checked here, served by workerd in test/runtimes/workers.mjs.
// The `register` block needs an app of its own to start: test/register/register.test.ts runs it.
const KNOWN_KINDS = new Set([...Object.keys(CHECKED_AT_LEAST), "shell-external", "run-ai7", "worker", "register"]);

const where = (b: DocBlock) => `${b.file}:${b.line}`;

function run(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv },
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** The output a block promises: `// text` after a console.log line, and comment lines right after it. */
function promisedOutput(code: string): string[] {
  const expected: string[] = [];
  const lines = code.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i]!.includes("console.log(")) continue;
    const texts: string[] = [];
    const trailing = /\);\s*\/\/ (.+)$/.exec(lines[i]!);
    if (trailing) texts.push(trailing[1]!);
    for (let j = i + 1; j < lines.length && /^\s*\/\/ /.test(lines[j]!); j++) texts.push(lines[j]!.replace(/^\s*\/\/ /, ""));
    for (const text of texts) {
      for (const part of text.split(" — ")[0]!.split(" · ")) expected.push(part.trim());
    }
  }
  return expected.filter((e) => e.length > 0);
}

let readme: string;
let blocks: DocBlock[];
let work: string;

beforeAll(async () => {
  readme = await readFile(join(ROOT, "README.md"), "utf8");
  blocks = (await documentedBlocks()).filter((b) => b.kind !== "UNMARKED");
  work = await mkdtemp(join(tmpdir(), "relaytrace-readme-"));
  await rm(BLOCK_DIR, { recursive: true, force: true });
  await mkdir(BLOCK_DIR, { recursive: true });
});

afterAll(async () => {
  await rm(BLOCK_DIR, { recursive: true, force: true });
});

describe("README and docs guides", () => {
  it("marks every README block with how it is checked, and every marker names a known check", () => {
    expect(
      blocksOf("README.md", readme)
        .filter((b) => b.kind === "UNMARKED")
        .map(where),
    ).toEqual([]);
    expect(blocks.filter((b) => !KNOWN_KINDS.has(b.kind)).map((b) => `${where(b)} ${b.kind}`)).toEqual([]);
    expect(readme).not.toContain("<!-- guarantees -->");
  });

  it("checks at least as many blocks of each kind as before the README was split into guides", () => {
    const counts: Record<string, number> = {};
    for (const b of blocks) counts[b.kind] = (counts[b.kind] ?? 0) + 1;
    for (const [kind, least] of Object.entries(CHECKED_AT_LEAST)) {
      expect({ kind, enough: (counts[kind] ?? 0) >= least }).toEqual({ kind, enough: true });
    }
    expect(blocks.length).toBeGreaterThanOrEqual(CHECKED_TOTAL_AT_LEAST);
    // The set-up block is the README's own.
    expect(blocks.filter((b) => b.kind === "shell").map((b) => b.file)).toEqual(["README.md"]);
  });

  it("finds each interop block (run by npm run test:interop) exactly once", async () => {
    for (const name of ["jaeger", "collector", "phoenix"]) {
      const { lines } = await interopCommands(name);
      expect(lines.some((line) => line.startsWith("npx relaytrace demo --otlp "))).toBe(true);
    }
  });

  // One tsc run over every block (it pulls in the integration libraries' declarations), then each
  // block executed: slow on a loaded machine.
  it("TypeScript blocks type-check against the built package and run, printing what they promise", { timeout: 180_000 }, async () => {
    const runnable = blocks.filter((b) => b.kind === "run");
    expect(runnable.length).toBeGreaterThanOrEqual(4);
    const typed = [...runnable, ...blocks.filter((b) => b.kind === "worker")];
    // Named for where they are documented, so a type error says which block it is in.
    const files = typed.map((b) => join(BLOCK_DIR, `${basename(b.file, ".md")}-line-${b.line}.ts`));
    await Promise.all(typed.map((b, i) => writeFile(files[i]!, `${b.code}\n`)));
    await writeFile(
      join(BLOCK_DIR, "tsconfig.json"),
      JSON.stringify({ extends: "../tsconfig.json", compilerOptions: { noEmit: true, rootDir: ".." }, include: ["*.ts"] }),
    );
    const typecheck = await run(process.execPath, [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", join(BLOCK_DIR, "tsconfig.json")], {
      cwd: ROOT,
    });
    expect(typecheck.stdout + typecheck.stderr).toBe("");

    // A real OTLP/HTTP receiver: the quick start's OtelExporter finds it through the standard variable.
    const received: string[] = [];
    const collector = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        received.push(JSON.stringify(decodeOtlp(signalOfPath(req.url ?? ""), String(req.headers["content-type"]), Buffer.concat(chunks))));
        res.writeHead(200, { "content-type": "application/json" });
        res.end("{}");
      });
    });
    await new Promise<void>((r) => collector.listen(0, "127.0.0.1", r));
    const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}/v1/traces`;
    try {
      for (const [i, block] of runnable.entries()) {
        const result = await run(process.execPath, ["--import", TSX, files[i]!], {
          cwd: work,
          env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: endpoint },
        });
        const block_ = where(block);
        expect({ block: block_, code: result.code, stderr: result.stderr }).toEqual({ block: block_, code: 0, stderr: "" });
        let from = 0;
        for (const expected of promisedOutput(block.code)) {
          const at = result.stdout.indexOf(expected, from);
          expect({ block: block_, expected, found: at >= 0 }).toEqual({ block: block_, expected, found: true });
          from = at + expected.length;
        }
      }
    } finally {
      await new Promise<void>((r) => collector.close(() => r()));
    }
    expect(received.join("")).toContain('"name":"add"');
  });

  it("the quick start's first run, with no collector configured or running, prints nothing on stderr", async () => {
    const [quickstart] = blocksOf("README.md", readme).filter((b) => b.kind === "run");
    expect(quickstart!.code).toContain("new OtelExporter(");
    const file = join(BLOCK_DIR, "quickstart-no-collector.ts");
    await writeFile(file, `${quickstart!.code}\n`);
    const unset = Object.fromEntries(
      Object.keys(process.env)
        .filter((k) => k.startsWith("OTEL_"))
        .map((k) => [k, undefined]),
    );
    const result = await run(process.execPath, ["--import", TSX, file], { cwd: work, env: unset });
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: "" });
    expect(result.stdout).toContain("done 3 + 4 = 7");
  });

  it("the set-up commands are the package's real demo and test scripts, and CI runs the same test command", async () => {
    const [setup] = blocks.filter((b) => b.kind === "shell" && b.file === "README.md");
    expect(setup!.code.split("\n")).toEqual(["npm ci && npm run demo", "npm test"]);
    const pkg = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> };
    expect(pkg.scripts.demo).toBe("npm run build --silent && node dist/src/cli/main.js demo");
    expect(await readFile(join(ROOT, ".ci/run"), "utf8")).toMatch(/^npm ci\b.*\nnpm test$/m);
    // `npm test` is this very run; the demo is run for real (the build is already done by `npm test`).
    const demo = await run(process.execPath, [CLI, "demo"], { cwd: work });
    expect(demo.code).toBe(0);
    expect(demo.stdout).toContain("relaytrace-out/relaytrace-atof-");
  });

  it("the demo's span tree samples match a real run (durations aside)", async () => {
    const demo = await run(process.execPath, [CLI, "demo", "--out", "tree-check"], { cwd: work });
    const strip = (text: string) => text.split("\n").map((l) => l.replace(/ \d+\.\d{3}ms/, "").trimEnd());
    const actual = strip(demo.stdout);
    const start = actual.indexOf("Spans (full projection):");
    for (const sample of blocks.filter((b) => b.kind === "demo-tree")) {
      const expected = strip(sample.code);
      expect({ block: where(sample), tree: actual.slice(start, start + expected.length) }).toEqual({
        block: where(sample),
        tree: expected,
      });
    }
  });

  it("`npx relaytrace` resolves to this package's own command inside the repository", async () => {
    const help = await run("npx", ["--no-install", "relaytrace", "--help"], { cwd: ROOT });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: relaytrace <command>");
  });

  it("the command-line blocks run (Jaeger itself aside) and exit 0", async () => {
    for (const block of blocks.filter((b) => b.kind === "shell-cli" || b.kind === "shell-external")) {
      for (const line of block.code.split("\n")) {
        if (line.startsWith("docker run")) {
          // Jaeger is not run here: check the ports the text relies on.
          expect(line).toContain("-p 4318:4318");
          expect(line).toContain("-p 16686:16686");
          continue;
        }
        expect(line.startsWith("npx relaytrace ")).toBe(true);
        const result = await run("sh", ["-c", line.replace("npx relaytrace", `"${process.execPath}" "${CLI}"`)], { cwd: work });
        expect({ block: where(block), line, code: result.code }).toEqual({ block: where(block), line, code: 0 });
      }
    }
  });

  it("the ATOF sample lines are exactly what the serializer writes, and the ATIF samples are valid", () => {
    for (const block of blocks.filter((b) => b.kind === "atof-line")) {
      expect({ block: where(block), line: serializeEvent(parseAtofLine(block.code, 1)) }).toEqual({
        block: where(block),
        line: block.code,
      });
    }
    for (const block of blocks.filter((b) => b.kind === "atif")) {
      const doc = JSON.parse(block.code) as unknown;
      expect({ block: where(block), result: validateAtif(doc) }).toEqual({ block: where(block), result: { valid: true, errors: [] } });
    }
  });
});
