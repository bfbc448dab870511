import { randomBytes } from "node:crypto";
import dgram from "node:dgram";
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import bencode from "bencode";
import { ALLOWED_COMMANDS, open, seal } from "../../telephony/bin/ng-frame.mjs";

/**
 * rtpengine's ng control protocol over UDP (its README, "The ng Control Protocol"): each request is a cookie, a
 * space and a bencoded dictionary; the answer carries the same cookie. Kamailio speaks it for offers and answers;
 * the app speaks it for what Kamailio's module has no function for (`subscribe request` for live listening, DESIGN
 * §12). A lost datagram is sent again, as Kamailio's module does; no answer at all is an error the caller shows.
 */
export interface MediaRelay {
  /** Sends one command; resolves with rtpengine's answer, rejects when it answers `result: error` or not at all. */
  command(request: Record<string, unknown>): Promise<Record<string, unknown>>;
  close(): void;
}

/** rtpengine answered, but refused (its `error-reason`). */
export class MediaRelayError extends Error {}

const TRIES = 3;
const TRY_MS = 700;

/**
 * A client of the rtpengine at `address` ("host:port"): its --listen-ng on this host, or with `secret` the telephony
 * host's gate (decision 066), which takes only requests signed with it and signs its answers. Only an answer from
 * that address is read, and through the gate only one signed for the very request it answers (its HMAC covers the
 * request's, decision 072); any other is ignored like a lost one. Only the commands the gate passes on are sent.
 */
export function rtpengineNg(address: string, secret = ""): MediaRelay {
  const [host, portText] = splitAddress(address);
  const port = Number(portText);
  const socket = dgram.createSocket(host.includes(":") ? "udp6" : "udp4");
  socket.unref();
  // The address answers must come from: the host's own, or what its name resolves to (once, at the first command).
  let peer: Promise<string> | null = isIP(host) ? Promise.resolve(host) : null;
  let peerAddress = isIP(host) ? host : "";
  /** cookie → the request's HMAC (its answer's is bound to it) and who waits for the answer */
  const waiting = new Map<string, { mac: string; settle: (answer: Record<string, unknown>) => void }>();
  socket.on("message", (received, from) => {
    if (from.address !== peerAddress || from.port !== port) return;
    let message: Buffer = received;
    if (secret) {
      const opened = open(secret, received, Date.now(), (cookie: string) => waiting.get(cookie)?.mac);
      if ("refused" in opened) return;
      message = opened.datagram;
    }
    const space = message.indexOf(0x20);
    if (space < 0) return;
    const cookie = message.subarray(0, space).toString();
    const settle = waiting.get(cookie)?.settle;
    if (!settle) return;
    let answer: unknown;
    try {
      answer = texts(bencode.decode(message.subarray(space + 1)));
    } catch {
      return; // Not an ng answer: the command's own timeout speaks for it.
    }
    waiting.delete(cookie);
    settle(answer as Record<string, unknown>);
  });
  socket.on("error", () => {
    // A refused datagram (rtpengine down) only means no answer: the command's own timeout says so.
  });

  return {
    async command(request) {
      if (!ALLOWED_COMMANDS.includes(String(request.command))) {
        throw new MediaRelayError(`команда «${String(request.command)}» не из тех, что шлюз rtpengine пропускает (ALLOWED_COMMANDS)`);
      }
      if (!peer) {
        peer = lookup(host, { family: 4 }).then((found) => found.address);
        peer.catch(() => (peer = null));
      }
      try {
        peerAddress = await peer;
      } catch {
        throw new MediaRelayError(`адрес rtpengine ${host} не найден`);
      }
      // The cookie is the request's nonce: random, so no two requests (and no two answers) are alike.
      const cookie = randomBytes(16).toString("hex");
      const plain = Buffer.concat([Buffer.from(`${cookie} `), Buffer.from(bencode.encode(request))]);
      // Sealed once: a repeat is the same frame, which the gate passes on from the same sender.
      const datagram = secret ? seal(secret, plain) : plain;
      // Its HMAC, the third word of the frame ("ng1 <ms> <mac> ..."): the answer's HMAC must cover it.
      const mac = secret ? datagram.toString("latin1", 0, 100).split(" ")[2] : "";
      const answer = await new Promise<Record<string, unknown> | null>((resolve) => {
        let tries = 0;
        let timer: ReturnType<typeof setTimeout>;
        const send = () => {
          if (tries++ === TRIES) {
            waiting.delete(cookie);
            resolve(null);
            return;
          }
          socket.send(datagram, port, peerAddress);
          timer = setTimeout(send, TRY_MS);
        };
        waiting.set(cookie, {
          mac,
          settle: (value) => {
            clearTimeout(timer);
            resolve(value);
          },
        });
        send();
      });
      if (!answer) throw new MediaRelayError("rtpengine не отвечает");
      if (answer.result === "error") throw new MediaRelayError(String(answer["error-reason"] ?? "rtpengine отказал"));
      return answer;
    },
    close() {
      socket.close();
    },
  };
}

/** "127.0.0.1:2223", "[::1]:2223" → host and port. */
function splitAddress(address: string): [string, string] {
  const match = address.trim().match(/^\[?([^\]]+?)\]?:(\d+)$/);
  if (!match) throw new Error(`RTPENGINE_NG: ожидается адрес вида 127.0.0.1:2223, а не «${address}»`);
  return [match[1], match[2]];
}

/**
 * bencode's byte strings as text (rtpengine's answers are SDP and names). The library's own "utf8" decoding fails
 * on Node 20 (it hands TextDecoder a value it refuses), so its raw result is converted here.
 */
function texts(value: unknown): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value).toString("utf8");
  if (Array.isArray(value)) return value.map(texts);
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, texts(v)]));
  return value;
}
