import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { bundleBrowserModules } from "../viewer/client-bundle.js";

/** The dashboard's bundled page script, written beside this module by the build. */
const BUNDLE = new URL("./dashboard-client.js", import.meta.url);

/** The dashboard page's browser modules (client/main.ts and what it imports, the viewer's among them) as one script. */
export function bundleDashboardClient(): string {
  const sources = ["./client/main.ts", "../../../../src/cli/dashboard/client/main.ts"].map((p) =>
    fileURLToPath(new URL(p, import.meta.url)),
  );
  return bundleBrowserModules(sources, "the dashboard's browser modules (src/cli/dashboard/client)");
}

/** The page script: the build's bundle, or (running from the sources) a fresh one. */
export function dashboardClientScript(): string {
  return existsSync(BUNDLE) ? readFileSync(BUNDLE, "utf8") : bundleDashboardClient();
}

// `node dist/src/cli/dashboard/client-bundle.js` is the build step that writes the bundle.
if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(BUNDLE, bundleDashboardClient());
}
