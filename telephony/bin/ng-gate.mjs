// The gate to rtpengine's control port for app hosts elsewhere (decision 066). rtpengine's ng protocol has no
// authentication and rtpengine listens for it on 127.0.0.1 only; this process listens on RTPENGINE_NG_GATE (an
// address the app hosts reach) and passes on to 127.0.0.1:RTPENGINE_NG_PORT only frames signed with
// RTPENGINE_NG_SECRET (telephony/bin/ng-frame.mjs) whose command is one the app sends (ALLOWED_COMMANDS, decision
// 072), and signs rtpengine's answers back, each bound to its request. Anything else is dropped without an answer
// and logged. Started by telephony/bin/ng-gate (which checks the settings).
import dgram from "node:dgram";
import { ALLOWED_COMMANDS, WINDOW_MS, commandOf, cookieOf, open, seal } from "./ng-frame.mjs";

const secret = process.env.RTPENGINE_NG_SECRET ?? "";
const [, gateHost, gatePort] = (process.env.RTPENGINE_NG_GATE ?? "").match(/^\[?([^\]]+?)\]?:(\d+)$/) ?? [];
const ngPort = Number(process.env.RTPENGINE_NG_PORT ?? 22222);
if (!gateHost || secret.length < 32) {
  console.error("ng-gate: RTPENGINE_NG_GATE (host:port) and RTPENGINE_NG_SECRET (32 characters or more) are needed");
  process.exit(64);
}

const outside = dgram.createSocket(gateHost.includes(":") ? "udp6" : "udp4");
const inside = dgram.createSocket("udp4");
const startedAt = Date.now();
/** cookie → who asked and his request's HMAC (the answer's is bound to it), until its answer or WINDOW_MS */
const askers = new Map();
/** signature → the address that sent it first: a frame replayed from elsewhere is dropped. */
const seen = new Map();

// Refusals are logged, at most one line a second (a flood must not fill the journal); those held back in that
// second are logged by the timer below, not only at a next refusal that may never come.
let refusedSince = 0;
let lastRefusal = "";
let lastLine = 0;
function refuse(from, reason) {
  refusedSince++;
  lastRefusal = `${from.address}:${from.port}: ${reason}`;
  if (Date.now() - lastLine >= 1000) flushRefusals();
}
function flushRefusals() {
  if (refusedSince === 0) return;
  console.error(`ng-gate: refused ${refusedSince} request(s), the last from ${lastRefusal}`);
  refusedSince = 0;
  lastLine = Date.now();
}
setInterval(flushRefusals, 1000).unref();

outside.on("message", (frame, from) => {
  const opened = open(secret, frame);
  if ("refused" in opened) return refuse(from, opened.refused);
  // What it saw before a restart is forgotten: a frame signed before this start is not taken as new.
  if (opened.at < startedAt) return refuse(from, "signed before the gate started");
  const sender = `${from.address}:${from.port}`;
  const first = seen.get(opened.mac);
  if (first && first.sender !== sender) return refuse(from, "a signed request replayed from another address");
  if (!first) seen.set(opened.mac, { sender, until: Date.now() + 2 * WINDOW_MS });
  const command = commandOf(opened.datagram);
  if (command === null) return refuse(from, "not an ng request (one bencoded dictionary with a command)");
  if (!ALLOWED_COMMANDS.includes(command)) return refuse(from, `command ${JSON.stringify(command.slice(0, 40))} is not one the app sends`);
  askers.set(cookieOf(opened.datagram), { from, mac: opened.mac, until: Date.now() + WINDOW_MS });
  inside.send(opened.datagram, ngPort, "127.0.0.1");
});

inside.on("message", (answer, from) => {
  if (from.address !== "127.0.0.1" || from.port !== ngPort) return;
  const cookie = cookieOf(answer);
  const asker = cookie !== null && askers.get(cookie);
  if (!asker) return;
  askers.delete(cookie);
  outside.send(seal(secret, answer, Date.now(), asker.mac), asker.from.port, asker.from.address);
});

// rtpengine down: its port refuses the datagram; the app's own timeout says «rtpengine не отвечает».
inside.on("error", () => {});
outside.on("error", (error) => {
  console.error(`ng-gate: ${error.message}`);
  process.exit(1);
});

setInterval(() => {
  const now = Date.now();
  for (const [key, value] of askers) if (value.until < now) askers.delete(key);
  for (const [key, value] of seen) if (value.until < now) seen.delete(key);
}, 5_000).unref();

outside.bind(Number(gatePort), gateHost, () => {
  console.error(`ng-gate: listening on ${process.env.RTPENGINE_NG_GATE} for signed requests to rtpengine on 127.0.0.1:${ngPort}`);
});
for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(signal, () => process.exit(0));
