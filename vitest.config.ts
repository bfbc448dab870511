import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/helpers/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // e2e files start a server and a browser each; two at a time is what two cores carry.
    maxWorkers: 2,
    reporters: process.env.CI ? ["default", "./test/helpers/summary-reporter.ts"] : ["default"],
  },
});
