import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePorts } from "../helpers/ports";
import { startDaemon, waitForTcp, type Daemon } from "./daemon";

/**
 * The production telephony stack (telephony/), started the way a host starts it (telephony/bin/kamailio and
 * telephony/bin/rtpengine with the settings in the environment), on free loopback ports.
 */
const BIN = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../../telephony/bin");

export interface StackOptions {
  appUrl: string;
  secret: string;
  domain: string;
  /** The carrier's "host:port". */
  trunk: string;
  callerId?: string;
  /** The trunk's digest credentials (TRUNK_LOGIN, TRUNK_PASSWORD). */
  trunkLogin?: string;
  trunkPassword?: string;
  /** TRUNK_DIDS: the carrier's numbers and the extension each rings. */
  dids?: Record<string, string>;
  /** CALL_RING_TIMEOUT: seconds before an unanswered call ends. */
  ringTimeoutSeconds?: number;
  /** Fixed ports (to bring Kamailio back on the same ones after a stop). */
  ports?: StackPorts;
  /** How many UDP ports rtpengine may use from ports.rtpMin (200 by default: four a call). */
  rtpPorts?: number;
  /** RECORDINGS_DIR: the app's recordings folder, whose spool rtpengine writes recorded calls into. */
  recordingsDir?: string;
  /** RTPENGINE_NG_GATE on this loopback port with RTPENGINE_NG_SECRET: the gate app hosts elsewhere use (decision 066). */
  ngGate?: { port: number; secret: string };
}
export interface StackPorts {
  ws: number;
  sip: number;
  ng: number;
  rtpMin: number;
}

export interface Stack {
  wsUrl: string;
  ports: StackPorts;
  kamailio: Daemon;
  rtpengine: Daemon;
  /** The ng gate, when options.ngGate asked for one. */
  ngGate?: Daemon;
  stopKamailio(): Promise<void>;
  startKamailio(): Promise<void>;
  stopRtpengine(): Promise<void>;
  startRtpengine(): Promise<void>;
  stop(): Promise<void>;
}

/** A block of 200 free-looking UDP ports for rtpengine, away from the ephemeral range other tests draw from. */
function rtpRange(): number {
  return 20_000 + Math.floor(Math.random() * 40) * 200;
}

async function defaultPorts(): Promise<StackPorts> {
  const [ws, sip, ng] = await freePorts(3);
  return { ws, sip, ng, rtpMin: rtpRange() };
}

export async function startStack(options: StackOptions): Promise<Stack> {
  const ports = options.ports ?? (await defaultPorts());
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), "leaddesk-telephony-"));
  const env: Record<string, string> = {
    SIP_DOMAIN: options.domain,
    SIP_AUTH_SECRET: options.secret,
    APP_URL: options.appUrl,
    TRUNK_HOST: options.trunk,
    TRUNK_CALLER_ID: options.callerId ?? "",
    TRUNK_LOGIN: options.trunkLogin ?? "",
    TRUNK_PASSWORD: options.trunkPassword ?? "",
    TRUNK_DIDS: Object.entries(options.dids ?? {})
      .map(([number, extension]) => `${number}=${extension}`)
      .join(","),
    CALL_RING_TIMEOUT: String(options.ringTimeoutSeconds ?? 60),
    TELEPHONY_IP: "127.0.0.1",
    KAMAILIO_SIP_PORT: String(ports.sip),
    KAMAILIO_WS_PORT: String(ports.ws),
    RTPENGINE_NG_PORT: String(ports.ng),
    RTP_PORT_MIN: String(ports.rtpMin),
    RTP_PORT_MAX: String(ports.rtpMin + (options.rtpPorts ?? 200) - 1),
    KAMAILIO_RUN_DIR: runDir,
    // Kept across stopKamailio/startKamailio: the calls in progress are written there at shutdown.
    KAMAILIO_STATE_DIR: path.join(runDir, "state"),
    KAMAILIO_SHM_MB: "32",
    RECORDINGS_DIR: options.recordingsDir ?? "",
    RTPENGINE_NG_GATE: options.ngGate ? `127.0.0.1:${options.ngGate.port}` : "",
    RTPENGINE_NG_SECRET: options.ngGate?.secret ?? "",
  };
  const stack: Stack = {
    wsUrl: `ws://127.0.0.1:${ports.ws}`,
    ports,
    kamailio: undefined as unknown as Daemon,
    rtpengine: undefined as unknown as Daemon,
    async startRtpengine() {
      stack.rtpengine = startDaemon("rtpengine", path.join(BIN, "rtpengine"), [], env);
      await stack.rtpengine.waitForLog(/Startup complete/i, 10_000);
    },
    async stopRtpengine() {
      await stack.rtpengine.stop();
    },
    async startKamailio() {
      stack.kamailio = startDaemon("kamailio", path.join(BIN, "kamailio"), [], env);
      await waitForTcp(ports.ws, stack.kamailio);
    },
    async stopKamailio() {
      await stack.kamailio.stop();
    },
    async stop() {
      await stack.ngGate?.stop();
      await stack.kamailio?.stop();
      await stack.rtpengine?.stop();
      fs.rmSync(runDir, { recursive: true, force: true });
    },
  };
  try {
    await stack.startRtpengine();
    if (options.ngGate) {
      stack.ngGate = startDaemon("ng-gate", path.join(BIN, "ng-gate"), [], env);
      await stack.ngGate.waitForLog(/ng-gate: listening/, 10_000);
    }
    await stack.startKamailio();
  } catch (error) {
    await stack.stop();
    throw error;
  }
  return stack;
}
