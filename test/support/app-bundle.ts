// An app that imports relaytrace by name, bundled the way wrangler bundles a Worker (esbuild, the
// "workerd", "worker" and "browser" conditions, node:* left to the runtime) or the way a bundler
// for Node does. "relaytrace" is this checkout's BUILT package, found through a node_modules link,
// so its package.json "exports", "imports" and "sideEffects" decide what the bundle holds.
import { mkdir, mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** Where the bundle is to run: a Worker (as wrangler bundles) or Node. */
export type BundleTarget = "worker" | "node";

export interface AppBundle {
  /** The bundled module's text. */
  code: string;
  /** The files that put bytes into the output (the metafile also lists files read and then left out). */
  files: string[];
  /** The npm packages those files belong to. */
  packages: Set<string>;
}

/** Bundles `source` (an ES module) for `target`. */
export async function bundleApp(source: string, target: BundleTarget): Promise<AppBundle> {
  const dir = await mkdtemp(join(tmpdir(), "relaytrace-app-bundle-"));
  try {
    await mkdir(join(dir, "node_modules"));
    await symlink(ROOT.replace(/\/$/, ""), join(dir, "node_modules", "relaytrace"), "dir");
    const result = await build({
      stdin: { contents: source, resolveDir: dir, loader: "js" },
      bundle: true,
      write: false,
      metafile: true,
      format: "esm",
      ...(target === "worker"
        ? { platform: "browser", conditions: ["workerd", "worker", "browser"], external: ["node:*"] }
        : { platform: "node", external: ["node:*"] }),
      outdir: join(dir, "out"),
      logLevel: "silent",
    });
    const output = Object.values(result.metafile.outputs)[0]!;
    const files = Object.entries(output.inputs)
      .filter(([, input]) => input.bytesInOutput > 0)
      .map(([file]) => file);
    const packages = new Set(files.flatMap((f) => /.*node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(f)?.[1] ?? []));
    return { code: result.outputFiles[0]!.text, files, packages };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
