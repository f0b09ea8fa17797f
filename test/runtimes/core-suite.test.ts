import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// The cross-runtime core suite runs on Bun and Deno in CI (test/interop/tools/js-runtimes.sh);
// here it runs on this Node, so a change that breaks the script itself shows in `npm test`, and
// again with enterWith throwing as it does on Cloudflare Workers.
const SUITE = fileURLToPath(new URL("./core-suite.mjs", import.meta.url));
const WITHOUT_ENTER_WITH = fileURLToPath(new URL("./throwing-enter-with.mjs", import.meta.url));
const built = existsSync(fileURLToPath(new URL("../../dist/src/index.js", import.meta.url)));

function runSuite(nodeArgs: string[]): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) =>
    execFile(process.execPath, [...nodeArgs, SUITE], { timeout: 60_000 }, (error, out) => resolve({ code: error ? 1 : 0, stdout: out })),
  );
}

describe.skipIf(!built)("the cross-runtime core suite", () => {
  it("passes every check on Node", async () => {
    const { code, stdout } = await runSuite([]);
    expect(stdout).toMatch(/^6 passed, 0 failed$/m);
    expect(code).toBe(0);
  });

  it("passes every check on Node when AsyncLocalStorage.enterWith throws, as on Workers", async () => {
    const { code, stdout } = await runSuite(["--import", WITHOUT_ENTER_WITH]);
    expect(stdout).toMatch(/^6 passed, 0 failed$/m);
    expect(code).toBe(0);
  });
});
