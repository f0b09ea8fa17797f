import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

/** The bundled page script, written beside this module by the build. */
const BUNDLE = new URL("./viewer-client.js", import.meta.url);

interface Esbuild {
  buildSync(options: Record<string, unknown>): { outputFiles: { text: string }[] };
}

/**
 * Bundles a page's browser modules (an entry and what it imports) into one script: esbuild, a dev
 * dependency, runs at build time; an installed package only reads the result. `entries` are the
 * entry's paths beside the calling module (running from the sources) and in the checkout the build
 * runs in (dist/src/cli/… → src/cli/…): one bundle, whichever runs.
 */
export function bundleBrowserModules(entries: readonly string[], what: string): string {
  const entry = entries.find((p) => existsSync(p));
  if (entry === undefined) throw new Error(`${what} are not here to bundle`);
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

/** The viewer's page script (client/main.ts and what it imports), bundled for an inline `<script>`. */
export function bundleViewerClient(): string {
  const sources = ["./client/main.ts", "../../../../src/cli/viewer/client/main.ts"].map((p) => fileURLToPath(new URL(p, import.meta.url)));
  return bundleBrowserModules(sources, "the viewer's browser modules (src/cli/viewer/client)");
}

/** The page script: the build's bundle, or (running from the sources) a fresh one. */
export function viewerClientScript(): string {
  return existsSync(BUNDLE) ? readFileSync(BUNDLE, "utf8") : bundleViewerClient();
}

// `node dist/src/cli/viewer/client-bundle.js` is the build step that writes the bundle.
if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(BUNDLE, bundleViewerClient());
}
