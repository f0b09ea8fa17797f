import { configDefaults, defineConfig } from "vitest/config";
import base from "./vitest.config.js";

// The viewer in Debian's chromium (playwright-core drives it): `npm run test:browser`.
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ["test/browser/**/*.test.ts"],
    exclude: configDefaults.exclude,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    fileParallelism: false,
  },
});
