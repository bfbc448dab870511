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
