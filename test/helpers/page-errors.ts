import type { Browser, BrowserContext, Page } from "playwright-core";

/**
 * A page's console.error or uncaught exception fails the test it happened in (issue 30, the Epic Stack's habit):
 * every page of a watched browser reports here, and test/helpers/page-errors-setup.ts checks after each test of
 * every file. A test that provokes an error on purpose says so with `allowPageError`, with a comment why.
 * Kept free of the app and of Playwright's runtime: the setup file loads it into every test file.
 */

/**
 * Logged by Remix itself, not by the app, and nothing a person sees: a navigation that interrupts another whose
 * answer is still arriving aborts it, and Remix's single fetch logs the abort of the answer it was decoding before
 * the router drops that answer (@remix-run/react 2.17, single-fetch.js `fetchAndDecode`). The lead panel without a
 * lead refreshes its data 500 ms after it is shown: a link followed then logged this (CI, stop 54, keyboard test).
 */
const REMIX_INTERRUPTED_NAVIGATION =
  /^console\.error on \S+: AbortError: signal is aborted without reason\n\s+at \S+ \(\S+\)\n\s+at Object\.\S+ \[as navigate\]/;

/** What the pages logged since the last check (an error between two tests counts against the next one). */
let logged: string[] = [];
/** The running test's allowances, and the file's (made outside any test). */
let allowed: RegExp[] = [];
let allowedInFile: RegExp[] = [];
let inTest = false;

function watchPage(page: Page) {
  page.on("console", (message) => {
    if (message.type() !== "error") return;
    const { url, lineNumber } = message.location();
    logged.push(`console.error on ${page.url()}: ${message.text()}${url ? ` (${url}:${lineNumber})` : ""}`);
  });
  page.on("pageerror", (error) => logged.push(`uncaught on ${page.url()}: ${error.stack ?? error.message}`));
}

function watchContext(context: BrowserContext) {
  for (const page of context.pages()) watchPage(page);
  context.on("page", watchPage);
  return context;
}

/**
 * Every page of `browser` is watched from now on: its contexts are all made by `newContext` (`browser.newPage`
 * goes through it too), which this wraps.
 */
export function watchBrowser<B extends Browser>(browser: B): B {
  for (const context of browser.contexts()) watchContext(context);
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (options) => watchContext(await newContext(options));
  return browser;
}

/**
 * An error matching `pattern` is expected (any page, any number of times), with a comment why. Inside a test it
 * holds for that test; at the top of a file (or in its beforeAll) for every test of the file, for a condition
 * the whole file sets up on purpose.
 */
export function allowPageError(pattern: RegExp) {
  (inTest ? allowed : allowedInFile).push(pattern);
}

/**
 * The browser logs every 4xx answer as a failed resource: a refusal the test provokes on purpose (a wrong password,
 * a manager on an admin page, a form the server sends back with its message) says so with its status.
 */
export function allowRefusal(...statuses: Array<400 | 401 | 403 | 404 | 409 | 413 | 502 | 503>) {
  for (const status of statuses) allowPageError(new RegExp(`Failed to load resource: the server responded with a status of ${status} `));
}

export function testStarts() {
  inTest = true;
}

/** Throws with every error logged since the last call that no allowance covers; then starts afresh. */
export function failOnPageErrors() {
  const unexpected = logged.filter((line) => ![REMIX_INTERRUPTED_NAVIGATION, ...allowed, ...allowedInFile].some((pattern) => pattern.test(line)));
  logged = [];
  allowed = [];
  inTest = false;
  if (unexpected.length > 0) {
    throw new Error(`the page logged ${unexpected.length} error(s) the test did not expect:\n${unexpected.join("\n")}`);
  }
}

/** A file's end: its allowances end with it. */
export function fileEnds() {
  allowedInFile = [];
  logged = [];
}
