import type { SerializedError } from "vitest";
import type { Reporter, TestModule, TestRunEndReason, TestSuite } from "vitest/node";
import { onPostgres } from "./backends";

/**
 * Prints the plain closing line CI reads ("N passed, N failed, N skipped") after vitest's own summary.
 * What did not run because its file or a hook failed counts as failed: the tests under a module or suite with
 * errors (a file that fails to load, a `beforeAll` that throws), or 1 when such a place collected none. So the
 * line never says "0 failed" for a run that failed.
 * Above it, the slowest files and tests: CI shows only the tail of its output, and the suite's length is watched.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>, reason: TestRunEndReason) {
    let passed = 0;
    let failed = unhandledErrors.length;
    let skipped = 0;
    for (const mod of testModules) {
      const broken = [mod, ...mod.children.allSuites()].filter((place) => place.errors().length > 0);
      const failedUnder = new Map<TestModule | TestSuite, number>(broken.map((place) => [place, 0]));
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        const brokenAbove = ancestors(test.parent).filter((place) => failedUnder.has(place));
        if (state === "passed") passed++;
        else if (state === "failed" || brokenAbove.length > 0) {
          failed++;
          for (const place of brokenAbove) failedUnder.set(place, failedUnder.get(place)! + 1);
        } else skipped++;
      }
      for (const count of failedUnder.values()) if (count === 0) failed++;
    }
    if (reason === "failed" && failed === 0) failed = 1;
    const seconds = (ms: number) => `${(ms / 1000).toFixed(1).padStart(6)} s`;
    const slowest = testModules
      .map((mod) => ({ file: mod.moduleId.replace(`${process.cwd()}/`, ""), ms: mod.diagnostic().duration }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 16);
    process.stdout.write(`\nSlowest files:\n${slowest.map((f) => `  ${seconds(f.ms)}  ${f.file}`).join("\n")}\n`);
    const slowestTests = testModules
      .flatMap((mod) =>
        [...mod.children.allTests()].map((test) => ({
          name: `${mod.moduleId.split("/").slice(-2).join("/")} › ${test.name.slice(0, 70)}`,
          ms: test.diagnostic()?.duration ?? 0,
        })),
      )
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 12);
    process.stdout.write(`\nSlowest tests:\n${slowestTests.map((t) => `  ${seconds(t.ms)}  ${t.name}`).join("\n")}\n`);
    if (onPostgres) {
      process.stdout.write(
        "\nOn Postgres: the browser tests (but the lead panel's and the login's) and the spreadsheet readers run on the embedded database only (test/helpers/backends.ts).\n",
      );
    }
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}

function ancestors(place: TestModule | TestSuite): Array<TestModule | TestSuite> {
  const chain: Array<TestModule | TestSuite> = [place];
  while (chain[chain.length - 1].type === "suite") chain.push((chain[chain.length - 1] as TestSuite).parent);
  return chain;
}
