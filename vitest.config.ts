import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  resolve: {
    // Examples and README snippets import the package by name; tests run them against the sources.
    alias: [
      { find: /^relaytrace\/exporters$/, replacement: here("./exporters/index.ts") },
      { find: /^relaytrace\/exporters\/signals$/, replacement: here("./exporters/signals.ts") },
      { find: /^relaytrace\/prices$/, replacement: here("./src/prices/index.ts") },
      { find: /^relaytrace\/testing$/, replacement: here("./exporters/testing/index.ts") },
      {
        find: /^relaytrace\/(ai-sdk|openai-agents|langchain|mcp|mastra|openai|anthropic|google-genai)$/,
        replacement: here("./src/integrations/$1/index.ts"),
      },
      { find: /^relaytrace\/register$/, replacement: here("./src/register/index.ts") },
      { find: /^relaytrace$/, replacement: here("./src/index.ts") },
      // package.json `imports`: the sources of what Node resolves (vite would take a bundler's condition).
      { find: /^#schema-compiler$/, replacement: here("./src/schema-compiler/on-first-use.ts") },
      { find: /^#otlp-span-export$/, replacement: here("./exporters/otel/node-span-export.ts") },
      { find: /^#price-table$/, replacement: here("./src/wire/price-table-import.ts") },
      { find: /^#otel-signals$/, replacement: here("./exporters/otel/signal-sdk-import.ts") },
    ],
  },
  test: {
    include: ["test/**/*.test.ts"],
    // The interop suite needs Jaeger, a collector, Phoenix and NAT: `npm run test:interop`;
    // the browser tests need chromium: `npm run test:browser` (vitest.browser.config.ts); the
    // peer tests need releases that cannot share this tree: test/interop/tools/peer-matrix.sh
    // installs them apart and sets RELAYTRACE_PEER_TESTS.
    exclude: [
      "test/interop/**",
      "test/browser/**",
      ...(process.env["RELAYTRACE_PEER_TESTS"] ? [] : ["test/peers/**"]),
      "**/node_modules/**",
    ],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    reporters: ["default", "./test/support/summary-reporter.ts"],
    // Every ATIF document a test writes is checked against NAT's Trajectory rules; the diagnostic
    // printer's lines for failures tests cause on purpose are captured, not printed.
    setupFiles: ["./test/support/atif-file-audit.ts", "./test/support/diagnostic-capture.ts"],
  },
});
