import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/helpers/children.ts", "test/helpers/global-setup.ts"],
    // A page's console.error fails its test (test/helpers/page-errors.ts).
    setupFiles: ["test/helpers/page-errors-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // e2e files start a server and a browser each; two at a time is what two cores carry.
    maxWorkers: 2,
    // The closing line counts what could not run as failed: CI and a newcomer read it alike.
    reporters: ["default", "./test/helpers/summary-reporter.ts"],
  },
});
