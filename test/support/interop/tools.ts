import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const TOOLS = fileURLToPath(new URL("../../interop/tools/", import.meta.url));

/**
 * Path of a pinned tool, installing it into the cache first if needed (`npm run test:interop`
 * has already done so, so here it only answers). The install scripts print the path last.
 */
export function toolPath(script: "install-jaeger.sh" | "install-collector.sh" | "install-python.sh", ...args: string[]): string {
  const out = execFileSync("bash", [`${TOOLS}${script}`, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  const lines = out.trim().split("\n");
  return lines[lines.length - 1]!;
}

/** The pinned versions of test/interop/tools/versions.env. */
export function pinnedVersions(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of readFileSync(`${TOOLS}versions.env`, "utf8").split("\n")) {
    const m = /^([A-Z0-9_]+)="?([^"]*)"?$/.exec(line.trim());
    if (m) out[m[1]!] = m[2]!;
  }
  return out;
}
