import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const PEERS = [
  "ai",
  "@openai/agents-core",
  "@langchain/core",
  "@modelcontextprotocol/sdk",
  "@mastra/core",
  "@mastra/observability",
  "openai",
  "@anthropic-ai/sdk",
  "@google/genai",
];
const SUBPATHS = ["ai-sdk", "openai-agents", "langchain", "mcp", "mastra", "openai", "anthropic", "google-genai"];

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "relaytrace-peers-"));
  // A module hook that writes down every package a program loads from node_modules.
  await writeFile(
    join(dir, "hooks.mjs"),
    // Hooks run on their own thread (Node 22+): a synchronous write, or lines are lost at exit.
    `import { writeSync } from "node:fs";
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  const m = /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(result.url);
  if (m) writeSync(2, "loaded " + m[1] + "\\n");
  return result;
}\n`,
  );
  await writeFile(
    join(dir, "register.mjs"),
    `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(join(dir, "hooks.mjs")).href)});\n`,
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function loadedBy(entry: string): Promise<Set<string>> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ["--import", pathToFileURL(join(dir, "register.mjs")).href, "-e", `await import(${JSON.stringify(entry)})`, "--input-type=module"],
      { cwd: ROOT },
      (error, _stdout, stderr) => {
        if (error) reject(new Error(stderr));
        else resolve(new Set([...stderr.matchAll(/^loaded (.+)$/gm)].map((m) => m[1]!)));
      },
    );
  });
}

describe("integration libraries are optional peers", () => {
  it("importing relaytrace, relaytrace/exporters or relaytrace/testing loads none of them", async () => {
    for (const entry of ["relaytrace", "relaytrace/exporters", "relaytrace/testing"]) {
      const loaded = await loadedBy(entry);
      // the hook sees packages: the resource SDK behind every projection's pipeline is among them
      if (entry !== "relaytrace") expect(loaded.has("@opentelemetry/resources"), entry).toBe(true);
      expect(
        PEERS.filter((p) => loaded.has(p)),
        entry,
      ).toEqual([]);
    }
  });

  it("the provider SDK wrappers load no SDK themselves: they work on the client the app hands them", async () => {
    for (const entry of ["relaytrace/openai", "relaytrace/anthropic", "relaytrace/google-genai"]) {
      const loaded = await loadedBy(entry);
      expect(
        PEERS.filter((p) => loaded.has(p)),
        entry,
      ).toEqual([]);
    }
  });

  it("each subpath resolves through the package exports; the package declares every library as an optional peer and a dev dependency", async () => {
    const pkg = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8")) as {
      exports: Record<string, unknown>;
      peerDependencies: Record<string, string>;
      peerDependenciesMeta: Record<string, { optional?: boolean }>;
      devDependencies: Record<string, string>;
      dependencies: Record<string, string>;
    };
    for (const sub of SUBPATHS)
      expect(pkg.exports[`./${sub}`]).toEqual({
        types: `./dist/src/integrations/${sub}/index.d.ts`,
        default: `./dist/pkg/src/integrations/${sub}/index.js`,
      });
    for (const peer of PEERS) {
      expect(pkg.peerDependenciesMeta[peer]?.optional, peer).toBe(true);
      expect(pkg.devDependencies[peer], peer).toBeDefined();
      expect(pkg.dependencies[peer], peer).toBeUndefined();
    }
  });
});
