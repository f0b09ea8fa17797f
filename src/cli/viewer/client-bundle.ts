import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

/** The bundled page script, written beside this module by the build. */
const BUNDLE = new URL("./viewer-client.js", import.meta.url);

interface Esbuild {
  buildSync(options: Record<string, unknown>): { outputFiles: { text: string }[] };
}

/**
 * Bundles the page's modules (client/main.ts and what it imports) into one script for an inline
 * `<script>`: esbuild, a dev dependency, runs at build time; an installed package only reads the
 * result. Running from the sources (tests), the modules are bundled on first use instead.
 */
export function bundleViewerClient(): string {
  // The TypeScript sources, beside this module (running from the sources) or in the checkout the
  // build runs in (dist/src/cli/viewer → src/cli/viewer): one bundle, whichever runs.
  const sources = ["./client/main.ts", "../../../../src/cli/viewer/client/main.ts"].map((p) => fileURLToPath(new URL(p, import.meta.url)));
  const entry = sources.find((p) => existsSync(p));
  if (entry === undefined) throw new Error("the viewer's browser modules (src/cli/viewer/client) are not here to bundle");
  const esbuild = createRequire(import.meta.url)("esbuild") as Esbuild;
  const result = esbuild.buildSync({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: "iife",
    platform: "browser",
    target: "es2020",
    legalComments: "none",
    charset: "utf8",
  });
  return result.outputFiles[0]!.text;
}

/** The page script: the build's bundle, or (running from the sources) a fresh one. */
export function viewerClientScript(): string {
  return existsSync(BUNDLE) ? readFileSync(BUNDLE, "utf8") : bundleViewerClient();
}

// `node dist/src/cli/viewer/client-bundle.js` is the build step that writes the bundle.
if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(BUNDLE, bundleViewerClient());
}
