import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort } from "../helpers/ports";
import { startDaemon, waitForTcp } from "./daemon";

/** Debian's Kamailio (packages kamailio and kamailio-websocket-modules, listed in test/system-packages.txt). */
export const KAMAILIO_PATH = process.env.KAMAILIO_PATH || "/usr/sbin/kamailio";
const MODULES_DIR = process.env.KAMAILIO_MODULES || "/usr/lib/x86_64-linux-gnu/kamailio/modules";
const CONFIG = path.join(path.dirname(new URL(import.meta.url).pathname), "kamailio.cfg");

export interface SipServer {
  /** ws://127.0.0.1:<port>: what SIP_WS_URL points at in the tests. */
  wsUrl: string;
  port: number;
  /** Everything Kamailio logged so far (registrations, relayed requests, 404s). */
  log(): string;
  /** Resolves once a line matching `pattern` has been logged. */
  waitForLog(pattern: RegExp, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts Kamailio in the foreground on a free loopback port with test/sip/kamailio.cfg: a registrar and proxy
 * for SIP over plain WebSocket. Its own pid file and runtime directory, so a system Kamailio never interferes.
 */
export async function startSipServer(options: { port?: number } = {}): Promise<SipServer> {
  if (!fs.existsSync(KAMAILIO_PATH)) {
    throw new Error(`${KAMAILIO_PATH} not found: apt-get install kamailio kamailio-websocket-modules (see test/system-packages.txt)`);
  }
  const port = options.port ?? (await freePort());
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), "leaddesk-kamailio-"));
  const args = [
    "-f",
    CONFIG,
    "-L",
    MODULES_DIR,
    "-Y",
    runDir,
    "-P",
    path.join(runDir, "kamailio.pid"),
    "-l",
    `tcp:127.0.0.1:${port}`,
    "-m",
    "64",
    "-M",
    "8",
    "-DD",
    "-E",
  ];
  const daemon = startDaemon("kamailio", KAMAILIO_PATH, args, {});
  try {
    await waitForTcp(port, daemon, 10_000);
  } catch (error) {
    await daemon.stop();
    throw error;
  }
  return {
    wsUrl: `ws://127.0.0.1:${port}`,
    port,
    log: daemon.log,
    waitForLog: (pattern, timeoutMs) => daemon.waitForLog(pattern, timeoutMs),
    async stop() {
      await daemon.stop();
      fs.rmSync(runDir, { recursive: true, force: true });
    },
  };
}
