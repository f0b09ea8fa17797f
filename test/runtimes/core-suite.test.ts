import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// The cross-runtime core suite runs on Bun and Deno in CI (test/interop/tools/js-runtimes.sh);
// here it runs on this Node, so a change that breaks the script itself shows in `npm test`.
const SUITE = fileURLToPath(new URL("./core-suite.mjs", import.meta.url));
const built = existsSync(fileURLToPath(new URL("../../dist/src/index.js", import.meta.url)));

describe.skipIf(!built)("the cross-runtime core suite", () => {
  it("passes every check on Node", async () => {
    const { code, stdout } = await new Promise<{ code: number; stdout: string }>((resolve) =>
      execFile(process.execPath, [SUITE], { timeout: 60_000 }, (error, out) => resolve({ code: error ? 1 : 0, stdout: out })),
    );
    expect(stdout).toMatch(/^5 passed, 0 failed$/m);
    expect(code).toBe(0);
  });
});
