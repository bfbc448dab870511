import { afterAll, afterEach, beforeEach } from "vitest";
import { failOnPageErrors, fileEnds, testStarts } from "./page-errors";

// Every test file: a console.error or an uncaught exception in a page fails the test it happened in.
beforeEach(testStarts);
afterEach(failOnPageErrors);
afterAll(fileEnds);
