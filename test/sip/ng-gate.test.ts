import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import dgram from "node:dgram";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../server/config";
import { rtpengineNg } from "../../server/telephony/rtpengine-ng";
import bencode from "bencode";
import { open, seal } from "../../telephony/bin/ng-frame.mjs";
import { freePorts } from "../helpers/ports";
import { startDaemon, type Daemon } from "./daemon";

/**
 * rtpengine's control port for app hosts elsewhere (decision 066): rtpengine listens for ng on 127.0.0.1 only, and
 * the gate (telephony/bin/ng-gate) passes on only requests signed with RTPENGINE_NG_SECRET. Another host is played
 * by a socket on 127.0.0.2 (a different source address on loopback); the app's own client is the real one. Live
 * listening and whisper through the gate, in a browser, are in test/e2e/telephony-carrier.test.ts (its stack is
 * started with the gate: test/sip/call-page.ts).
 */
const BIN = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../../telephony/bin");
const secret = randomBytes(32).toString("hex");
let rtpengine: Daemon;
let gate: Daemon;
let ngPort: number;
let gatePort: number;
let env: Record<string, string>;

beforeAll(async () => {
  [ngPort, gatePort] = await freePorts(2);
  const rtpMin = 20_000 + Math.floor(Math.random() * 40) * 200;
  env = {
    TELEPHONY_IP: "127.0.0.1",
    RTPENGINE_NG_PORT: String(ngPort),
    RTP_PORT_MIN: String(rtpMin),
    RTP_PORT_MAX: String(rtpMin + 199),
    RECORDINGS_DIR: "",
    RTPENGINE_LOG_LEVEL: "6",
    RTPENGINE_NG_GATE: `127.0.0.1:${gatePort}`,
    RTPENGINE_NG_SECRET: secret,
  };
  rtpengine = startDaemon("rtpengine", path.join(BIN, "rtpengine"), [], env);
  await rtpengine.waitForLog(/Startup complete/i, 10_000);
  gate = startDaemon("ng-gate", path.join(BIN, "ng-gate"), [], env);
  await gate.waitForLog(/ng-gate: listening/, 10_000);
});

afterAll(async () => {
  await gate?.stop();
  await rtpengine?.stop();
});

/** Sends `frame` from a socket bound to `from` and returns the first datagram back within `ms`, or null. */
async function exchange(frame: Buffer, from: string, ms = 1500, socket?: dgram.Socket): Promise<Buffer | null> {
  const own = socket ?? dgram.createSocket("udp4");
  if (!socket) await new Promise<void>((resolve) => own.bind(0, from, resolve));
  try {
    return await new Promise<Buffer | null>((resolve) => {
      const timer = setTimeout(() => resolve(null), ms);
      own.once("message", (message) => {
        clearTimeout(timer);
        resolve(message);
      });
      own.send(frame, gatePort, "127.0.0.1");
    });
  } finally {
    if (!socket) own.close();
  }
}

const ping = (cookie: string) => Buffer.from(`${cookie} d7:command4:pinge`);

describe("rtpengine's control from another host, through the gate", () => {
  it("answers the app's signed commands: a ping, and rtpengine's own refusal of a subscription to a call it does not have", async () => {
    const relay = rtpengineNg(`127.0.0.1:${gatePort}`, secret);
    try {
      expect(await relay.command({ command: "ping" })).toMatchObject({ result: "pong" });
      await expect(relay.command({ command: "subscribe request", "call-id": "no-such-call", flags: ["all"] })).rejects.toThrow(/Unknown call-id/i);
    } finally {
      relay.close();
    }
  });

  it("drops, without an answer, what another host sends unsigned, signed with another secret, too old, or replayed", async () => {
    // Plain ng, as rtpengine itself would take it.
    expect(await exchange(ping("plain"), "127.0.0.2")).toBeNull();
    // Signed, but not with the telephony host's secret.
    expect(await exchange(seal(randomBytes(32).toString("hex"), ping("forged")), "127.0.0.2")).toBeNull();
    // Signed with it a minute ago (a recorded request played back later).
    expect(await exchange(seal(secret, ping("stale"), Date.now() - 60_000), "127.0.0.2")).toBeNull();
    // Captured on the wire from the app and sent again from elsewhere at once.
    const captured = seal(secret, ping("captured"));
    const app = dgram.createSocket("udp4");
    await new Promise<void>((resolve) => app.bind(0, "127.0.0.1", resolve));
    try {
      expect((await exchange(captured, "127.0.0.1", 1500, app))?.toString()).toMatch(/ captured d6:result4:ponge$/);
      expect(await exchange(captured, "127.0.0.2")).toBeNull();
      // The app's own repeat of a request (its answer lost) is still answered.
      expect((await exchange(captured, "127.0.0.1", 1500, app))?.toString()).toMatch(/ captured d6:result4:ponge$/);
    } finally {
      app.close();
    }
    await gate.waitForLog(/ng-gate: refused \d+ request\(s\), the last from 127\.0\.0\.2:\d+: /, 3000);
    // The same plain ping straight at rtpengine's own port is answered: what protects it is where it listens.
    const direct = dgram.createSocket("udp4");
    try {
      const answer = await new Promise<string | null>((resolve) => {
        const timer = setTimeout(() => resolve(null), 1500);
        direct.once("message", (m) => (clearTimeout(timer), resolve(m.toString())));
        direct.send(ping("direct"), ngPort, "127.0.0.1");
      });
      expect(answer).toBe("direct d6:result4:ponge");
    } finally {
      direct.close();
    }
  });

  it("the app takes no unsigned answer: a stranger answering in the gate's place is as good as no answer", async () => {
    const impostor = dgram.createSocket("udp4");
    await new Promise<void>((resolve) => impostor.bind(0, "127.0.0.1", resolve));
    // Answers every request with rtpengine's plain pong under the request's own cookie.
    impostor.on("message", (frame, from) => {
      const cookie = /^ng1 \d+ [0-9a-f]{64} (\S+) /.exec(frame.toString("latin1"))?.[1] ?? "x";
      impostor.send(`${cookie} d6:result4:ponge`, from.port, from.address);
    });
    const relay = rtpengineNg(`127.0.0.1:${(impostor.address() as { port: number }).port}`, secret);
    try {
      await expect(relay.command({ command: "ping" })).rejects.toThrow("rtpengine не отвечает");
    } finally {
      relay.close();
      impostor.close();
    }
  });

  it("passes on only the commands the app sends: list, query, block media, start recording, offer and tricks are refused and logged, and the app's client sends none of them", async () => {
    const app = dgram.createSocket("udp4");
    await new Promise<void>((resolve) => app.bind(0, "127.0.0.1", resolve));
    const port = (app.address() as { port: number }).port;
    const signed = (cookie: string, body: string | Record<string, unknown>) =>
      seal(secret, Buffer.concat([Buffer.from(`${cookie} `), typeof body === "string" ? Buffer.from(body) : Buffer.from(bencode.encode(body))]));
    try {
      for (const [cookie, body] of [
        ["list", { command: "list" }],
        ["query", { command: "query", "call-id": "any" }],
        ["block", { command: "block media", "call-id": "any" }],
        ["record", { command: "start recording", "call-id": "any" }],
        ["offer", { command: "offer", "call-id": "any", "from-tag": "x", sdp: "v=0" }],
        ["unsubscribe", { command: "unsubscribe", "call-id": "any", "to-tag": "x" }],
        // A second command key (rtpengine and the gate must not read different ones), JSON, something after the dictionary.
        ["twice", "d7:command4:ping7:command4:liste"],
        ["json", '{"command":"list"}'],
        ["trailing", "d7:command4:pingel"],
      ] as const) {
        expect(await exchange(signed(cookie, body), "127.0.0.1", 600, app), cookie).toBeNull();
      }
      // All nine are counted in the log (a second's refusals make one line, naming the last of them).
      const counted = () =>
        [...gate.log().matchAll(new RegExp(`refused (\\d+) request\\(s\\), the last from 127\\.0\\.0\\.1:${port}: `, "g"))].reduce(
          (sum, m) => sum + Number(m[1]),
          0,
        );
      await expect.poll(counted, { timeout: 3000 }).toBe(9);
      expect(gate.log()).toMatch(new RegExp(`from 127\\.0\\.0\\.1:${port}: command "[a-z ]+" is not one the app sends`));
      // The same socket's signed ping is answered: only the commands were refused.
      expect((await exchange(signed("fine", { command: "ping" }), "127.0.0.1", 1500, app))?.toString()).toMatch(/ fine d6:result4:ponge$/);
    } finally {
      app.close();
    }
    const relay = rtpengineNg(`127.0.0.1:${gatePort}`, secret);
    try {
      await expect(relay.command({ command: "list" })).rejects.toThrow("команда «list» не из тех, что шлюз rtpengine пропускает");
    } finally {
      relay.close();
    }
  });

  it("the app takes only an answer from the gate's address, signed for the very request it answers: one from elsewhere, one unbound, one bound to another request and a replayed one are as good as none", async () => {
    const fake = dgram.createSocket("udp4");
    const stranger = dgram.createSocket("udp4");
    await new Promise<void>((resolve) => fake.bind(0, "127.0.0.1", resolve));
    await new Promise<void>((resolve) => stranger.bind(0, "127.0.0.2", resolve));
    type Mode = "right" | "elsewhere" | "unbound" | "other request" | "replayed";
    let mode: Mode = "right";
    let earlier: { frame: Buffer; mac: string } | null = null;
    // Plays the gate: opens the app's request and answers pong the way `mode` says.
    fake.on("message", (frame, from) => {
      const opened = open(secret, frame);
      if ("refused" in opened) return;
      const cookie = opened.datagram.toString("latin1").split(" ")[0];
      const pong = Buffer.from(`${cookie} d6:result4:ponge`);
      const right = seal(secret, pong, Date.now(), opened.mac);
      const reply = (answer: Buffer, socket = fake) => socket.send(answer, from.port, from.address);
      if (mode === "right") reply(right);
      if (mode === "elsewhere") reply(right, stranger);
      if (mode === "unbound") reply(seal(secret, pong));
      if (mode === "other request") reply(seal(secret, pong, Date.now(), earlier!.mac));
      if (mode === "replayed") reply(earlier!.frame);
      if (!earlier) earlier = { frame: right, mac: opened.mac };
    });
    const relay = rtpengineNg(`127.0.0.1:${(fake.address() as { port: number }).port}`, secret);
    try {
      expect(await relay.command({ command: "ping" })).toMatchObject({ result: "pong" });
      for (const m of ["elsewhere", "unbound", "other request", "replayed"] as const) {
        mode = m;
        await expect(relay.command({ command: "ping" }), m).rejects.toThrow("rtpengine не отвечает");
      }
      mode = "right";
      expect(await relay.command({ command: "ping" })).toMatchObject({ result: "pong" });
    } finally {
      relay.close();
      fake.close();
      stranger.close();
    }
  });

  it("logs the refusals held back within a second on its own, without waiting for a further one", async () => {
    const other = dgram.createSocket("udp4");
    await new Promise<void>((resolve) => other.bind(0, "127.0.0.2", resolve));
    const port = (other.address() as { port: number }).port;
    try {
      // Two at once: the first may be logged at once, the second is held back for the rest of that second.
      other.send(ping("first"), gatePort, "127.0.0.1");
      other.send(seal(randomBytes(32).toString("hex"), ping("second")), gatePort, "127.0.0.1");
      await gate.waitForLog(new RegExp(`refused \\d+ request\\(s\\), the last from 127\\.0\\.0\\.2:${port}: wrong signature`), 3000);
    } finally {
      other.close();
    }
  });

  it("keeps rtpengine's own control port on loopback, where no other host reaches it", () => {
    // /proc/net/udp: local address and port in hex; 0100007F is 127.0.0.1.
    const bound = fs
      .readFileSync("/proc/net/udp", "utf8")
      .split("\n")
      .map((line) => line.trim().split(/\s+/)[1] ?? "")
      .filter((local) => local.endsWith(`:${ngPort.toString(16).toUpperCase().padStart(4, "0")}`));
    expect(bound).toEqual(["0100007F:" + ngPort.toString(16).toUpperCase().padStart(4, "0")]);
  });

  it("does not start the gate without a secret long enough, nor on every address", () => {
    const run = (extra: Record<string, string>) =>
      spawnSync(path.join(BIN, "ng-gate"), [], { env: { ...process.env, ...env, ...extra }, encoding: "utf8", timeout: 5000 });
    const short = run({ RTPENGINE_NG_SECRET: "short" });
    expect(short.status).toBe(64);
    expect(short.stderr).toContain("RTPENGINE_NG_SECRET must be at least 32 characters");
    const everywhere = run({ RTPENGINE_NG_GATE: `0.0.0.0:${gatePort}` });
    expect(everywhere.status).toBe(64);
    expect(everywhere.stderr).toContain("not 0.0.0.0");
  });

  it("keeps the app from speaking plain ng to another host: it needs the gate's secret", () => {
    expect(() => loadConfig({ RTPENGINE_NG: "10.0.0.5:22223" })).toThrow(
      "Неверная переменная окружения RTPENGINE_NG: управление rtpengine без пароля доступно только на этой машине (127.0.0.1); к 10.0.0.5 нужен шлюз RTPENGINE_NG_GATE на сервере телефонии и общий RTPENGINE_NG_SECRET (docs/telephony.md, 7a)",
    );
    expect(() => loadConfig({ RTPENGINE_NG: "10.0.0.5:22223", RTPENGINE_NG_SECRET: "short" })).toThrow(/не меньше 32 символов/);
    expect(loadConfig({ RTPENGINE_NG: "10.0.0.5:22223", RTPENGINE_NG_SECRET: secret }).rtpengineNgSecret).toBe(secret);
    expect(loadConfig({ RTPENGINE_NG: "127.0.0.1:22222" }).rtpengineNg).toBe("127.0.0.1:22222");
  });
});
