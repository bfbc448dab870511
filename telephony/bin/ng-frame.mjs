// The signed frame around an rtpengine ng datagram (decision 066), shared by the gate (telephony/bin/ng-gate.mjs)
// and the app's client (server/telephony/rtpengine-ng.ts), so the two cannot drift apart. Plain JavaScript with
// Node's own crypto: the telephony host runs it with Debian's nodejs and nothing installed from npm.
//
//   request: "ng1 <unix ms> <hex HMAC-SHA256(secret, 'ng1 <unix ms> ' + datagram)> <datagram>"
//   answer:  "ng1 <unix ms> <hex HMAC-SHA256(secret, 'ng1 <unix ms> answer to <request's HMAC> ' + datagram)> <datagram>"
//
// The time bounds a replay to WINDOW_MS; within it the gate answers a repeat only to the address that sent it
// first, and rtpengine answers a repeated cookie from its cache without doing the command again. An answer is bound
// to its request (decision 072): its HMAC covers the request's, which covers the request's random cookie (the
// nonce) and time, so an answer captured on the wire answers that one request and no other.
import { createHmac, timingSafeEqual } from "node:crypto";

/** How far a frame's time may be from the receiver's clock (the hosts keep time with NTP). */
export const WINDOW_MS = 30_000;

/**
 * The ng commands the app sends (server/core/telephony/listening.ts), the only ones the gate passes on (decision
 * 072): anything else a holder of the secret might send (`list`, `query`, `offer`, `block media`, `start recording`,
 * ...) is refused by the gate, and the app's client refuses to send it. `delete` ends a listener's or a whisper's
 * party by its tag, and a call at rtpengine once the proxy reported its end (issue 39; the app no longer sends
 * `unsubscribe`, which kept the party in the call); `ping` checks the way (telephony/start, the tests).
 */
export const ALLOWED_COMMANDS = Object.freeze(["ping", "subscribe request", "subscribe answer", "publish", "delete"]);

const MAGIC = "ng1 ";

const macOf = (secret, head, datagram, answerTo) => {
  const hmac = createHmac("sha256", secret).update(head);
  if (answerTo) hmac.update(`answer to ${answerTo} `);
  return hmac.update(datagram).digest();
};

/**
 * @param {string} secret RTPENGINE_NG_SECRET
 * @param {Uint8Array} datagram an ng request or answer: cookie, space, bencoded dictionary
 * @param {number} [now] unix ms
 * @param {string} [answerTo] for an answer: its request's HMAC (hex), which the answer's HMAC covers
 * @returns {Buffer}
 */
export function seal(secret, datagram, now = Date.now(), answerTo = "") {
  const head = `${MAGIC}${Math.trunc(now)} `;
  const mac = macOf(secret, head, datagram, answerTo).toString("hex");
  return Buffer.concat([Buffer.from(`${head}${mac} `), datagram]);
}

/**
 * The datagram inside a frame, or why it is refused.
 * @param {string} secret
 * @param {Buffer} frame
 * @param {number} [now]
 * @param {(cookie: string) => string | undefined} [answerTo] for an answer: the HMAC of the request with this cookie
 *   (none: refused, an answer to nothing asked)
 * @returns {{ datagram: Buffer, mac: string, at: number } | { refused: string }}
 */
export function open(secret, frame, now = Date.now(), answerTo) {
  if (frame.subarray(0, MAGIC.length).toString("latin1") !== MAGIC) return { refused: "not signed" };
  const timeEnd = frame.indexOf(0x20, MAGIC.length);
  const macEnd = timeEnd < 0 ? -1 : frame.indexOf(0x20, timeEnd + 1);
  if (macEnd < 0) return { refused: "not signed" };
  const timeText = frame.subarray(MAGIC.length, timeEnd).toString("latin1");
  const mac = frame.subarray(timeEnd + 1, macEnd).toString("latin1");
  const datagram = frame.subarray(macEnd + 1);
  if (!/^\d{1,15}$/.test(timeText) || !/^[0-9a-f]{64}$/.test(mac)) return { refused: "not signed" };
  let request = "";
  if (answerTo) {
    request = answerTo(cookieOf(datagram) ?? "") ?? "";
    if (!request) return { refused: "an answer to no request" };
  }
  const expected = macOf(secret, frame.subarray(0, timeEnd + 1), datagram, request);
  if (!timingSafeEqual(expected, Buffer.from(mac, "hex"))) return { refused: "wrong signature" };
  if (Math.abs(now - Number(timeText)) > WINDOW_MS) return { refused: "too old or from the future (check both clocks)" };
  return { datagram, mac, at: Number(timeText) };
}

/** The cookie of an ng datagram (what comes before its first space), or null. */
export function cookieOf(datagram) {
  const space = datagram.indexOf(0x20);
  return space > 0 ? datagram.subarray(0, space).toString("latin1") : null;
}

/**
 * The command of an ng request, or null when it is not one exactly: the cookie, a space, and one bencoded dictionary
 * with nothing after it, no key twice (rtpengine and the gate must not read different commands from one request),
 * and a text `command`. rtpengine also takes JSON; the gate takes only bencode, which the app sends.
 * @param {Buffer} datagram
 * @returns {string | null}
 */
export function commandOf(datagram) {
  const space = datagram.indexOf(0x20);
  if (space <= 0) return null;
  const body = datagram.subarray(space + 1);
  if (body[0] !== 0x64 /* d */) return null;
  let command = null;
  try {
    const end = skip(body, 0, 0, (key, start, stop) => {
      if (key === "command") command = body.subarray(start, stop);
    });
    if (end !== body.length) return null;
  } catch {
    return null;
  }
  if (!command) return null;
  const text = readString(command);
  return text;
}

/** A bencoded byte string's text, or null for anything else. */
function readString(value) {
  const colon = value.indexOf(0x3a);
  if (colon <= 0 || !/^\d+$/.test(value.subarray(0, colon).toString("latin1"))) return null;
  return value.subarray(colon + 1).toString("utf8");
}

/**
 * Where the bencoded value at `at` ends (throws when it is not one). For the top dictionary (depth 0), `onKey` gets
 * each key with where its value starts and stops; a key seen twice throws.
 */
function skip(body, at, depth, onKey) {
  if (depth > 32 || at >= body.length) throw new Error("bad bencode");
  const c = body[at];
  if (c === 0x69 /* i */) {
    const end = body.indexOf(0x65, at);
    if (end < 0 || !/^-?\d+$/.test(body.subarray(at + 1, end).toString("latin1"))) throw new Error("bad integer");
    return end + 1;
  }
  if (c >= 0x30 && c <= 0x39) {
    const colon = body.indexOf(0x3a, at);
    const lengthText = colon < 0 ? "" : body.subarray(at, colon).toString("latin1");
    if (!/^\d{1,7}$/.test(lengthText)) throw new Error("bad string");
    const end = colon + 1 + Number(lengthText);
    if (end > body.length) throw new Error("short string");
    return end;
  }
  if (c === 0x6c /* l */) {
    let next = at + 1;
    while (body[next] !== 0x65) next = skip(body, next, depth + 1);
    return next + 1;
  }
  if (c === 0x64 /* d */) {
    const keys = new Set();
    let next = at + 1;
    while (body[next] !== 0x65) {
      if (next >= body.length) throw new Error("open dictionary");
      const keyEnd = skip(body, next, depth + 1);
      if (!(body[next] >= 0x30 && body[next] <= 0x39)) throw new Error("key not a string");
      const key = readString(body.subarray(next, keyEnd));
      if (keys.has(key)) throw new Error("key twice");
      keys.add(key);
      const valueEnd = skip(body, keyEnd, depth + 1);
      if (depth === 0 && onKey) onKey(key, keyEnd, valueEnd);
      next = valueEnd;
    }
    return next + 1;
  }
  throw new Error("bad bencode");
}
