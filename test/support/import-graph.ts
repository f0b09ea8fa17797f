// The import graph of the repository's source files: every static import and re-export,
// `import type` included (dynamic `import()` is not followed); and what the built entry points
// actually load at run time (runModuleProbe).
import { execFile } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

export function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** The repository-relative .ts file a relative specifier names, or undefined for packages. */
function resolveSpecifier(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith(".")) return undefined;
  const base = join(dirname(from), specifier);
  const candidates = [base.replace(/\.js$/, ".ts"), `${base}.ts`, join(base, "index.ts")];
  return candidates.find((c) => existsSync(join(ROOT, c)));
}

/** Each file's imports: `import … from`, `import "…"`, `export … from` (dynamic `import()` is not a cycle risk). */
export function importGraph(files: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), "utf8"), ts.ScriptTarget.Latest, false);
    const targets = new Set<string>();
    for (const statement of source.statements) {
      const specifier =
        (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) && statement.moduleSpecifier
          ? (statement.moduleSpecifier as ts.StringLiteral).text
          : undefined;
      const target = specifier === undefined ? undefined : resolveSpecifier(file, specifier);
      if (target !== undefined) targets.add(target);
    }
    graph.set(file, [...targets]);
  }
  return graph;
}

/** What one run of test/runtimes/module-probe.mjs saw. */
export interface ModuleProbeReport {
  /** Every package Node loaded a file of (node_modules names), sorted. */
  packages: string[];
  /** Every file of the package's own dist/ that Node loaded, repository-relative, sorted. */
  files: string[];
  /** Node built-ins loaded through the module loader (`node:http`, …), sorted; not those taken with process.getBuiltinModule. */
  builtins: string[];
  /** Node's internal modules of its bundled undici that were loaded (process.moduleLoadList). */
  nodeInternals: string[];
  /** The diagnostics of the OtelExporter the scenario made (none for an import-only scenario). */
  diagnostics: { code: string; message: string; count: number }[];
  /** define-tool: the packages loaded once relaytrace was imported, before the tool was defined. */
  packagesAtImport?: string[];
  /** define-tool: what the tool returned for arguments its schema refuses. */
  toolResult?: { output: string; isError: boolean };
}

/**
 * Runs a scenario of test/runtimes/module-probe.mjs in a fresh Node against the built package:
 * `missing` packages fail to resolve there, as if they were not installed.
 */
export function runModuleProbe(scenario: string, otlpBase = "", missing: readonly string[] = []): Promise<ModuleProbeReport> {
  const probe = join(ROOT, "test/runtimes/module-probe.mjs");
  const args = [probe, scenario, otlpBase, ...(missing.length > 0 ? [`--missing=${missing.join(",")}`] : [])].filter((a) => a !== "");
  return new Promise((resolvePromise, reject) =>
    execFile(process.execPath, args, { cwd: ROOT, timeout: 60_000 }, (error, stdout, stderr) => {
      const line = stdout.trim().split("\n").pop() ?? "";
      try {
        resolvePromise(JSON.parse(line) as ModuleProbeReport);
      } catch {
        reject(new Error(`module probe ${scenario} printed no report: ${String(error)} ${stderr}`));
      }
    }),
  );
}
