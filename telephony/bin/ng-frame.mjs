// The signed frame around an rtpengine ng datagram (decision 066), shared by the gate (telephony/bin/ng-gate.mjs)
// and the app's client (server/telephony/rtpengine-ng.ts), so the two cannot drift apart. Plain JavaScript with
// Node's own crypto: the telephony host runs it with Debian's nodejs and nothing installed from npm.
//
//   "ng1 <unix ms> <hex HMAC-SHA256(secret, 'ng1 <unix ms> ' + datagram)> <datagram>"
//
// The time bounds a replay to WINDOW_MS; within it the gate answers a repeat only to the address that sent it
// first, and rtpengine answers a repeated cookie from its cache without doing the command again.
import { createHmac, timingSafeEqual } from "node:crypto";

/** How far a frame's time may be from the receiver's clock (the hosts keep time with NTP). */
export const WINDOW_MS = 30_000;

const MAGIC = "ng1 ";

/**
 * @param {string} secret RTPENGINE_NG_SECRET
 * @param {Uint8Array} datagram an ng request or answer: cookie, space, bencoded dictionary
 * @param {number} [now] unix ms
 * @returns {Buffer}
 */
export function seal(secret, datagram, now = Date.now()) {
  const head = `${MAGIC}${Math.trunc(now)} `;
  const mac = createHmac("sha256", secret).update(head).update(datagram).digest("hex");
  return Buffer.concat([Buffer.from(`${head}${mac} `), datagram]);
}

/**
 * The datagram inside a frame, or why it is refused.
 * @param {string} secret
 * @param {Buffer} frame
 * @param {number} [now]
 * @returns {{ datagram: Buffer, mac: string, at: number } | { refused: string }}
 */
export function open(secret, frame, now = Date.now()) {
  if (frame.subarray(0, MAGIC.length).toString("latin1") !== MAGIC) return { refused: "not signed" };
  const timeEnd = frame.indexOf(0x20, MAGIC.length);
  const macEnd = timeEnd < 0 ? -1 : frame.indexOf(0x20, timeEnd + 1);
  if (macEnd < 0) return { refused: "not signed" };
  const timeText = frame.subarray(MAGIC.length, timeEnd).toString("latin1");
  const mac = frame.subarray(timeEnd + 1, macEnd).toString("latin1");
  const datagram = frame.subarray(macEnd + 1);
  if (!/^\d{1,15}$/.test(timeText) || !/^[0-9a-f]{64}$/.test(mac)) return { refused: "not signed" };
  const expected = createHmac("sha256", secret).update(frame.subarray(0, timeEnd + 1)).update(datagram).digest();
  if (!timingSafeEqual(expected, Buffer.from(mac, "hex"))) return { refused: "wrong signature" };
  if (Math.abs(now - Number(timeText)) > WINDOW_MS) return { refused: "too old or from the future (check both clocks)" };
  return { datagram, mac, at: Number(timeText) };
}
