import v8 from "node:v8";

/**
 * V8 lets the old generation grow to up to four times what survived the last full collection when the
 * allocation rate is high, and keeps those pages afterwards: after a saturating load run an instance held
 * 290 MB with 65 MB in use. Growing by half at most keeps memory flat under load for about a tenth more GC
 * work (docs/decisions/015, bench/load.ts). Read by V8 at every collection, so setting it at start takes effect.
 * The app's process calls it first thing; a bench that measures the app's work in its own process calls it too,
 * so it measures what the app would.
 */
export function capHeapGrowth() {
  v8.setFlagsFromString("--heap-growing-percent=50");
}

/**
 * Flags V8 reads only when a process starts, so they are on the command line of every start of the app:
 * package.json's start and dev, deploy/leaddesk.service, and the benches and tests that run it as its own
 * process (APP_COMMAND; test/core/app-command.test.ts keeps them the same).
 * A young generation of 4 MB semi-spaces instead of 16: during an import the main thread's short-lived rows filled
 * three 16 MB spaces that stay resident; with 4 MB the embedded database's import of 100,000 rows peaks 60 to 70 MB
 * lower (under 400 MB), and lead turns cost the same within the bench's spread (docs/decisions/047).
 */
export const APP_NODE_FLAGS = ["--max-semi-space-size=4"];

/** Node's arguments that run the app as `npm start` runs it, with `extraFlags` after its own (the last one wins). */
export const appCommand = (extraFlags: string[] = []) => [...APP_NODE_FLAGS, ...extraFlags, "--import", "tsx", "server/main.ts"];

/** Node's arguments that run the app as `npm start` runs it (after its build). */
export const APP_COMMAND = appCommand();
