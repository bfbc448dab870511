/**
 * The e2e tests' browser: Debian's chromium-headless-shell, Chromium's own engine without the desktop browser around
 * it (Playwright's default for headless runs). It takes ~40 % of full Chromium's CPU for the same pages (login and
 * five admin screens, three fresh contexts: 5.7-6.1 against 14.9-16.8 CPU s; the screens walk 308 against 426), and
 * Chromium was most of the suite's CPU.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || "/usr/bin/chromium-headless-shell";

/**
 * Full Chromium, where the shell falls short: pages that play a call's relayed audio to an admin or choose a
 * microphone (the shell's devices have no ids), so the call-path files (test/sip/call-page.ts) and their browsers;
 * and the benches, which time what a user's browser does. The screens walk stays in the shell: beside
 * telephony-carrier the pair took 336 s with it in the shell, and in full Chromium 553 s with three of that file's
 * tests failing (a /auth load over 30 s), 2026-11-30. (A whole PGlite half without CI=true took the shell's walk
 * 789 s: it screenshots every visit then; with CI=true 349 s, against 431 on CI in full Chromium.)
 */
export const FULL_CHROMIUM_PATH = process.env.CHROMIUM_PATH || "/usr/bin/chromium";

/** Flags for Debian's Chromium as root on a closed network (DESIGN §10), plus fake media for the softphone. */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--use-fake-ui-for-media-stream",
  "--use-fake-device-for-media-stream",
  "--allow-loopback-in-peer-connection",
];
