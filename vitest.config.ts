import { configDefaults, defineConfig } from "vitest/config";
import { EMBEDDED_ONLY, onPostgres } from "./test/helpers/backends";
import HeaviestFirst from "./test/helpers/sequencer";

/**
 * The files that share their worker's modules (`isolate: false`): the API and core tests, where each file's own
 * load of the server and its Remix build, and PGlite's WebAssembly, cost more than its tests (10 files: 290 s
 * isolated, 148 s shared, 2026-11-30). They leave no module state behind that another file reads (each builds its
 * own app and database). Browser, fault, load and SIP files start processes and browsers of their own, and keep a
 * fresh worker each.
 */
const SHARED = ["test/api/**/*.test.ts", "test/core/**/*.test.ts"];

export default defineConfig({
  test: {
    // On Postgres, the files no database changes are left out (test/helpers/backends.ts says which and why).
    exclude: onPostgres ? [...configDefaults.exclude, ...EMBEDDED_ONLY] : configDefaults.exclude,
    globalSetup: ["test/helpers/children.ts", "test/helpers/global-setup.ts"],
    // A page's console.error fails its test (test/helpers/page-errors.ts).
    setupFiles: ["test/helpers/page-errors-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // e2e files start a server and a browser each; two at a time is what two cores carry.
    maxWorkers: 2,
    // The longest files first, so that the run does not end with one worker alone on one of them.
    sequence: { sequencer: HeaviestFirst },
    // The closing line counts what could not run as failed: CI and a newcomer read it alike.
    reporters: ["default", "./test/helpers/summary-reporter.ts"],
    projects: [
      { extends: true, test: { name: "shared", include: SHARED, isolate: false } },
      {
        extends: true,
        test: {
          name: "isolated",
          include: ["test/**/*.test.ts"],
          exclude: [...configDefaults.exclude, ...SHARED, ...(onPostgres ? EMBEDDED_ONLY : [])],
        },
      },
    ],
  },
});
