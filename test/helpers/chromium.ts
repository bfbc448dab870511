/** Debian's Chromium, as the e2e tests and bench/bandwidth.ts launch it. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || "/usr/bin/chromium";

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
