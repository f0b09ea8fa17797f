import { execFileSync } from "node:child_process";
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
