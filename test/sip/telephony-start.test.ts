import dgram from "node:dgram";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rtpengineNg } from "../../server/telephony/rtpengine-ng";
import { endPidWithTheRun } from "../helpers/children";
import { freePorts } from "../helpers/ports";
import { startDaemon, type Daemon } from "./daemon";

/**
 * telephony/start, the one command of a single host (issue 27): rtpengine first, Kamailio once rtpengine answers a
 * ping; whichever daemon dies is started again while the other keeps running; SIGTERM ends both and restarts
 * nothing. Run as a host runs it: a settings file that does not exist, the settings in the environment, free
 * loopback ports.
 *
 * rtpengine is made slow to start (1.5 s before it listens, through RTPENGINE_BIN): a Kamailio started alongside
 * it, as telephony/start used to, logs "proxy did not respond to ping" every time.
 */
const START = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../../telephony/start");

let runDir: string;
let start: Daemon;
let ports: { ws: number; sip: number; ng: number; gate: number };
const GATE_SECRET = "a-gate-secret-of-at-least-32-characters-0123";
/** Every daemon pid telephony/start reported, each its process group's leader, and what drops its note. */
const seen = new Map<number, () => void>();

beforeAll(async () => {
  runDir = fs.mkdtempSync(path.join(os.tmpdir(), "leaddesk-telephony-start-"));
  const slowRtpengine = path.join(runDir, "slow-rtpengine");
  fs.writeFileSync(slowRtpengine, '#!/bin/sh\nsleep 1.5\nexec /usr/bin/rtpengine "$@"\n', { mode: 0o755 });
  const [ws, sip, ng, gate] = await freePorts(4);
  ports = { ws, sip, ng, gate };
  // 200 UDP ports away from the ephemeral range, as test/sip/stack.ts takes them.
  const rtpMin = 20_000 + Math.floor(Math.random() * 40) * 200;
  start = startDaemon("telephony/start", START, [path.join(runDir, "no-such-telephony.env")], {
    SIP_DOMAIN: "start.test",
    SIP_AUTH_SECRET: "a-sip-secret-of-at-least-32-characters",
    APP_URL: "http://127.0.0.1:9",
    TRUNK_HOST: "127.0.0.1:9",
    TELEPHONY_IP: "127.0.0.1",
    KAMAILIO_SIP_PORT: String(ports.sip),
    KAMAILIO_WS_PORT: String(ports.ws),
    RTPENGINE_NG_PORT: String(ports.ng),
    RTP_PORT_MIN: String(rtpMin),
    RTP_PORT_MAX: String(rtpMin + 199),
    KAMAILIO_RUN_DIR: runDir,
    KAMAILIO_STATE_DIR: path.join(runDir, "state"),
    KAMAILIO_SHM_MB: "32",
    RTPENGINE_BIN: slowRtpengine,
    // The gate for app hosts elsewhere (decision 066) runs beside the daemons.
    RTPENGINE_NG_GATE: `127.0.0.1:${ports.gate}`,
    RTPENGINE_NG_SECRET: GATE_SECRET,
  });
  // The daemons run in sessions of their own: the run's teardown must end them as well if this file never ends.
  const note = () => {
    for (const [, , pid] of start.log().matchAll(/(rtpengine|kamailio|ng-gate) started \(pid (\d+)\)/g)) {
      if (!seen.has(Number(pid))) seen.set(Number(pid), endPidWithTheRun(Number(pid)));
    }
  };
  start.child.stderr!.on("data", note);
  await waitFor(() => tcpOpen(ports.ws), 10_000, "Kamailio's port");
});

afterAll(async () => {
  await start?.stop();
  for (const [pid, drop] of seen) {
    for (const target of [-pid, pid]) {
      try {
        process.kill(target, "SIGKILL");
      } catch {
        // Ended already.
      }
    }
    drop();
  }
  if (runDir) fs.rmSync(runDir, { recursive: true, force: true });
});

describe("telephony/start", () => {
  it("starts rtpengine first and Kamailio once rtpengine answers", async () => {
    expect(await ngPing(ports.ng)).toBe(true);
    // Kamailio's worker pings rtpengine as it starts, after the WebSocket port opens; on a loaded machine that can
    // come after the next test's kill of rtpengine, and would log the very line this file forbids (a CI failure).
    await start.waitForLog(/rtpengine instance <[^>]+> found, support for it enabled/, 20_000);
    const log = start.log();
    expect(log.indexOf("rtpengine started")).toBeGreaterThanOrEqual(0);
    expect(log.indexOf("kamailio started")).toBeGreaterThan(log.indexOf("rtpengine started"));
    expect(log).not.toMatch(/proxy did not respond to ping/);
  });

  it("starts rtpengine again after SIGKILL, and Kamailio stays up", async () => {
    const rtpengine = daemonPid("rtpengine");
    const kamailio = daemonPid("kamailio");
    process.kill(rtpengine, "SIGKILL");
    await start.waitForLog(new RegExp(`rtpengine \\(pid ${rtpengine}\\) died with exit status 137 \\(SIGKILL\\)`), 5_000);
    await waitFor(() => Promise.resolve(daemonPid("rtpengine") !== rtpengine), 5_000, "a new rtpengine");
    await waitFor(() => ngPing(ports.ng), 10_000, "the new rtpengine's answer to ping");
    expect(daemonPid("kamailio")).toBe(kamailio);
    expect(alive(kamailio)).toBe(true);
    expect(await tcpOpen(ports.ws)).toBe(true);
    expect(start.log()).not.toMatch(/kamailio \(pid \d+\) died/);
  });

  it("starts Kamailio again after SIGKILL, its leftover workers ended first", async () => {
    const kamailio = daemonPid("kamailio");
    const rtpengine = daemonPid("rtpengine");
    expect(groupMembers(kamailio).length).toBeGreaterThan(1);
    process.kill(kamailio, "SIGKILL");
    await start.waitForLog(new RegExp(`kamailio \\(pid ${kamailio}\\) died with exit status 137 \\(SIGKILL\\)`), 5_000);
    await waitFor(() => Promise.resolve(daemonPid("kamailio") !== kamailio), 10_000, "a new Kamailio");
    // Its workers held the port: the port open proves nothing until they are gone.
    expect(groupMembers(kamailio)).toEqual([]);
    await waitFor(() => tcpOpen(ports.ws), 10_000, "the new Kamailio's port");
    await new Promise((r) => setTimeout(r, 500));
    expect(alive(daemonPid("kamailio"))).toBe(true);
    expect(daemonPid("rtpengine")).toBe(rtpengine);
    expect(start.log().match(/kamailio \(pid \d+\) died/g)).toHaveLength(1);
  });

  it("runs the gate to rtpengine's control beside them, and starts it again after SIGKILL", async () => {
    const signedPing = async () => {
      const relay = rtpengineNg(`127.0.0.1:${ports.gate}`, GATE_SECRET);
      try {
        return (await relay.command({ command: "ping" })).result === "pong";
      } catch {
        return false;
      } finally {
        relay.close();
      }
    };
    await waitFor(signedPing, 10_000, "the gate's answer");
    const gate = daemonPid("ng-gate");
    process.kill(gate, "SIGKILL");
    await start.waitForLog(new RegExp(`ng-gate \\(pid ${gate}\\) died with exit status 137 \\(SIGKILL\\)`), 5_000);
    await waitFor(() => Promise.resolve(daemonPid("ng-gate") !== gate), 5_000, "a new gate");
    await waitFor(signedPing, 10_000, "the new gate's answer");
  });

  it("never starts Kamailio before rtpengine answers", () => {
    expect(start.log()).not.toMatch(/proxy did not respond to ping/);
  });

  it("ends both daemons on SIGTERM and restarts neither", async () => {
    const exited = new Promise<number | null>((resolve) => start.child.once("exit", (code) => resolve(code)));
    process.kill(start.child.pid!, "SIGTERM");
    expect(await exited).toBe(0);
    const left = [...seen.keys()].flatMap(groupMembers);
    expect(left).toEqual([]);
    expect(start.log()).toMatch(/telephony\/start: stopped/);
    // rtpengine, Kamailio and the gate, each started twice.
    expect(start.log().match(/started \(pid/g)).toHaveLength(6);
  });
});

/** The pid telephony/start last reported for the daemon. */
function daemonPid(name: "rtpengine" | "kamailio" | "ng-gate"): number {
  const pids = [...start.log().matchAll(new RegExp(`${name} started \\(pid (\\d+)\\)`, "g"))].map((m) => Number(m[1]));
  if (pids.length === 0) throw new Error(`telephony/start never started ${name}:\n${start.log().slice(-3000)}`);
  return pids[pids.length - 1];
}

/** The fields of /proc/<pid>/stat after the name (state, ppid, pgrp, ...), or null once the process is gone. */
function procStat(pid: number): string[] | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // "pid (comm) state ppid pgrp ...": comm may hold spaces, so split after its closing parenthesis.
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null;
  }
}

/** Running (not zombie) and not gone. */
function alive(pid: number): boolean {
  const stat = procStat(pid);
  return stat !== null && stat[0] !== "Z";
}

/** The live processes of process group `pgid` (a daemon and what it forked). */
function groupMembers(pgid: number): number[] {
  return fs
    .readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => {
      const stat = procStat(pid);
      return stat !== null && stat[0] !== "Z" && Number(stat[2]) === pgid;
    });
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} never came within ${timeoutMs} ms; telephony/start's log:\n${start.log().slice(-4000)}`);
}

function tcpOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** rtpengine's ng protocol: "<cookie> d7:command4:pinge" answered by "<cookie> d6:result4:ponge". */
function ngPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = dgram.createSocket("udp4");
    const cookie = `test${Math.floor(Math.random() * 1e9)}`;
    const done = (answered: boolean) => {
      clearTimeout(timer);
      socket.close();
      resolve(answered);
    };
    const timer = setTimeout(() => done(false), 500);
    socket.on("message", (message) => done(message.toString() === `${cookie} d6:result4:ponge`));
    socket.on("error", () => done(false));
    socket.send(`${cookie} d7:command4:pinge`, port, "127.0.0.1");
  });
}
