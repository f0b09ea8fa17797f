// The test suite's own runs read clean: a failure a test provokes on purpose is counted by the
// runtime (what the test asserts) and its printer line is captured by the suite's setup file
// (test/support/diagnostic-capture.ts) instead of reaching the run's output. What a user's
// program prints is pinned in child processes by diagnostics-log.test.ts.
import { describe, expect, it } from "vitest";
import { createRuntime } from "../../src/index.js";
import { printedDiagnostics } from "../support/diagnostic-capture.js";

describe("diagnostics a test provokes", () => {
  it("are counted by the runtime, and the printer's line is captured with its code and message", async () => {
    const rt = createRuntime();
    rt.subscribe("breaks-on-purpose", () => {
      throw new Error("subscriber broken on purpose");
    });
    rt.mark("step");
    await rt.flush();
    const failure = rt.diagnostics().find((d) => /failed/.test(d.code));
    expect(failure, JSON.stringify(rt.diagnostics())).toBeDefined();
    const line = printedDiagnostics().find((l) => l.startsWith(`relaytrace warn: ${failure!.code}: `));
    expect(line, printedDiagnostics().join("\n")).toBeDefined();
    expect(line).toContain("subscriber broken on purpose");
  });
});
