import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { NatLastSequencer } from "./test/support/interop/nat-last-sequencer.js";

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
// Every ATIF and ATOF file the interop runs write goes under one directory, for the NAT checks.
const outputRoot = process.env["RELAYTRACE_INTEROP_OUT"] ?? mkdtempSync(join(tmpdir(), "relaytrace-interop-out-"));

// `npm run test:interop`: the suite that runs relaytrace against real Jaeger, an OpenTelemetry
// Collector, Phoenix and NAT. Kept apart from `npm test`, which needs nothing but Node.
export default defineConfig({
  resolve: {
    alias: [
      { find: /^relaytrace\/exporters$/, replacement: here("./exporters/index.ts") },
      { find: /^relaytrace\/testing$/, replacement: here("./exporters/testing/index.ts") },
      { find: /^relaytrace$/, replacement: here("./src/index.ts") },
    ],
  },
  test: {
    include: ["test/interop/**/*.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // The programs under test share two cores; one file at a time keeps start-up times sane.
    fileParallelism: false,
    sequence: { sequencer: NatLastSequencer },
    env: { RELAYTRACE_INTEROP_OUT: outputRoot },
    reporters: ["default", "./test/support/summary-reporter.ts"],
  },
});
