import dgram from "node:dgram";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { encodeG711, rtpAudio } from "../../server/core/recordings/pcap-audio";
import { startDaemon, type Daemon } from "./daemon";

/**
 * The carrier's end of the call path: SIPp (Debian's sip-tester) speaks SIP on UDP from scenario files, and its
 * SDP points the media at `MediaEcho`, a UDP socket of this test that sends every RTP packet back where it came
 * from (what a person on the phone who repeats everything would do) and counts what arrived, by payload type.
 */
const HERE = path.dirname(new URL(import.meta.url).pathname);
export const SIPP_PATH = process.env.SIPP_PATH || "/usr/bin/sipp";

export interface MediaEcho {
  port: number;
  /** RTP packets received so far. */
  packets(): number;
  /** Packets whose payload type is `pt` (e.g. the telephone-event type the INVITE offered). */
  packetsOf(pt: number): number;
  /** RFC 4733 events received with payload type `pt`: the digits, once per event (its end packet). */
  dtmfDigits(pt: number): string;
  /** Packets received per SSRC since the last `sources` reset: whose streams reached the carrier. */
  sources(reset?: boolean): Map<number, number>;
  /** Instead of echoing, answer every G.711 packet with one of a tone of `hz` (null: echo again): the client speaks. */
  speak(hz: number | null): void;
  /** The G.711 audio received since the last reset (8 kHz, at most the last 10 s): what the client would hear. */
  heard(reset?: boolean): Float32Array;
  close(): Promise<void>;
}

const DTMF_EVENTS = "0123456789*#ABCD";

export async function startMediaEcho(): Promise<MediaEcho> {
  const socket = dgram.createSocket("udp4");
  let total = 0;
  const byType = new Map<number, number>();
  const events: Array<{ pt: number; digit: string; timestamp: number }> = [];
  let bySource = new Map<number, number>();
  let tone: { hz: number } | null = null;
  // Each peer (one per call leg) its own tone stream, so two calls at once each hear a clean tone.
  let toneOf = new Map<string, { sample: number; sequence: number }>();
  let heard: Int16Array[] = [];
  let heardSamples = 0;
  socket.on("message", (packet, from) => {
    if (packet.length < 12 || packet[0] >> 6 !== 2) return;
    const pt = packet[1] & 0x7f;
    total += 1;
    const ssrc = packet.readUInt32BE(8);
    bySource.set(ssrc, (bySource.get(ssrc) ?? 0) + 1);
    byType.set(pt, (byType.get(pt) ?? 0) + 1);
    if (packet.length >= 16) {
      const timestamp = packet.readUInt32BE(4);
      const event = packet[12];
      const end = (packet[13] & 0x80) !== 0;
      // An event's end packet is sent three times; count it once (same RTP timestamp).
      if (end && event < DTMF_EVENTS.length && !events.some((e) => e.pt === pt && e.timestamp === timestamp)) {
        events.push({ pt, digit: DTMF_EVENTS[event], timestamp });
      }
    }
    const audio = rtpAudio(packet);
    if (audio) {
      heard.push(audio.samples);
      heardSamples += audio.samples.length;
      while (heardSamples - heard[0].length >= 80_000) heardSamples -= heard.shift()!.length;
    }
    if (tone && (pt === 0 || pt === 8) && packet.length === 172) {
      const peer = `${from.address}:${from.port}`;
      const state = toneOf.get(peer) ?? { sample: 0, sequence: 0 };
      toneOf.set(peer, state);
      const samples = Int16Array.from({ length: 160 }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * tone!.hz * (state.sample + i)) / 8000)));
      const reply = Buffer.concat([packet.subarray(0, 12), encodeG711(samples, pt === 0 ? "PCMU" : "PCMA")]);
      reply.writeUInt16BE(state.sequence++ & 0xffff, 2);
      reply.writeUInt32BE(state.sample >>> 0, 4);
      reply.writeUInt32BE(0x70ce, 8);
      state.sample += 160;
      socket.send(reply, from.port, from.address);
      return;
    }
    // The carrier's own stream, as a phone's would be: the same audio back under another SSRC (a browser keys its
    // received streams by SSRC, so a listener hearing both parties would otherwise take them for one).
    const echoed = Buffer.from(packet);
    echoed.writeUInt32BE((packet.readUInt32BE(8) ^ 0x5a5a5a5a) >>> 0, 8);
    socket.send(echoed, from.port, from.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", () => resolve()));
  return {
    port: socket.address().port,
    packets: () => total,
    packetsOf: (pt) => byType.get(pt) ?? 0,
    dtmfDigits: (pt) =>
      events
        .filter((e) => e.pt === pt)
        .map((e) => e.digit)
        .join(""),
    sources(reset = false) {
      const seen = bySource;
      if (reset) bySource = new Map();
      return seen;
    },
    speak(hz) {
      tone = hz === null ? null : { hz };
      toneOf = new Map();
    },
    heard(reset = false) {
      const all = new Float32Array(heardSamples);
      let at = 0;
      for (const chunk of heard) for (const sample of chunk) all[at++] = sample / 32768;
      if (reset) [heard, heardSamples] = [[], 0];
      return all;
    },
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

export type CarrierBehaviour =
  /**
   * Rings for ringMs, answers; with `challenge`, first demands the trunk's digest with a 401 or 407. `strict`
   * refuses what strict carriers refuse: an INVITE over 1,300 bytes or offering more than G.711 and
   * telephone-event, a repeated INVITE with the challenged CSeq, a request in the call with a CSeq not above the
   * last (carrier-answer.xml).
   */
  | { answer: { ringMs?: number; challenge?: 401 | 407; digest?: DigestChallenge; strict?: boolean } }
  /** Rings, answers, and hangs up `afterMs` after the ACK: its BYE goes to the browser (carrier-hangs-up.xml). */
  | { hangUp: { afterMs: number } }
  /** Never answers anything (a carrier down or behind a firewall that drops). */
  | { silent: true }
  | { reject: { code: number; reason: string } }
  /**
   * Calls in: an INVITE from the client `from` (380501112233 unless said) to `extension` at Kamailio's UDP socket
   * `kamailio` ("ip:port"); with `cancelAfterMs`, the client hangs up that long after the page's 180 Ringing, while it
   * rings (CANCEL, carrier-call-cancel.xml).
   */
  | { callIn: { extension: string; kamailio: string; from?: string; cancelAfterMs?: number } };

export interface Carrier {
  daemon: Daemon;
  /** Every SIP message SIPp sent and received so far (its -trace_msg file). */
  messages(): string;
  waitForMessage(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** The first reply to a `method` request in the trace (its first line: "SIP/2.0 200 OK"), once there is one. */
  replyTo(method: string, timeoutMs?: number): Promise<string>;
  stop(): Promise<void>;
}

/** What the carrier's challenge says (realm "carrier.example" and a short nonce unless said); `qop` asks for qop=auth. */
export interface DigestChallenge {
  realm?: string;
  nonce?: string;
  qop?: boolean;
}

/** The first exchange of a carrier that demands its trunk's digest on every INVITE (carrier-answer.xml). */
function digestChallenge(
  code: 401 | 407,
  strict: boolean,
  { realm = "carrier.example", nonce = "[pid]nonce[call_number]", qop = false }: DigestChallenge = {},
) {
  const [reason, header] = code === 401 ? ["Unauthorized", "WWW-Authenticate"] : ["Proxy Authentication Required", "Proxy-Authenticate"];
  return `<recv request="INVITE" crlf="true">
    <action>
      ${
        strict
          ? `<ereg regexp="[0-9]+" search_in="hdr" header="CSeq:" check_it="false" assign_to="challengedtext"/>
      <todouble assign_to="challengedcseq" variable="challengedtext"/>`
          : ""
      }
    </action>
  </recv>
  <send><![CDATA[
SIP/2.0 ${code} ${reason}
[last_Via:]
[last_From:]
[last_To:];tag=[pid]auth[call_number]
[last_Call-ID:]
[last_CSeq:]
${header}: Digest realm="${realm}", nonce="${nonce}", algorithm=MD5${qop ? ', qop="auth"' : ""}
Content-Length: 0

]]></send>
  <recv request="ACK"/>`;
}

/** A final answer to the INVITE (or the request) just received, with a to-tag. */
const finalAnswer = (code: number, reason: string) => `<send><![CDATA[
SIP/2.0 ${code} ${reason}
[last_Via:]
[last_From:]
[last_To:];tag=[pid]strict[call_number]
[last_Call-ID:]
[last_CSeq:]
Content-Length: 0

]]></send>`;

/**
 * SIPp actions that set the boolean `name` when `regexp` matches from the start of the message (or body). An
 * ereg's variable that matched nothing is left unusable, so the regexp always matches (an empty alternative) and
 * its group's text is compared with "!": anything matched sorts after it, the empty string before. Branch on the
 * result with `test=` (SIPp's condexec reads a variable as set whatever its value). The log (off: no -trace_logs)
 * keeps SIPp from refusing a variable written and never read.
 */
const matched = (name: string, regexp: string, searchIn: "msg" | "body") =>
  `<ereg regexp="^((${regexp})|)" search_in="${searchIn}" check_it="false" assign_to="${name}all,${name}text"/>
      <strcmp assign_to="${name}cmp" variable="${name}text" value="!"/>
      <test assign_to="${name}" variable="${name}cmp" compare="greater_than" value="0"/>
      <log message="${name}: [$${name}all]"/>`;

/** The strict carrier's checks, filled into carrier-answer.xml's placeholders (empty for a lenient carrier). */
function strictness(strict: boolean, challenged: boolean): Record<string, string> {
  if (!strict) return { strict: "", strictInvite: "", strictRefusals: "", strictInDialog: "", strictOrder: "", strictReplies: "" };
  return {
    strict: "strict",
    strictInvite: `<ereg regexp="[0-9]+" search_in="hdr" header="CSeq:" check_it="false" assign_to="cseqtext"/>
      <todouble assign_to="lastcseq" variable="cseqtext"/>
      ${matched("toolarge", "[[:print:][:space:]]{1301}", "msg")}
      ${matched("foreign", "[[:print:][:space:]]*a=rtpmap:[0-9]+ (opus|red|G722|ISAC|CN|ILBC|iLBC|rtx|G729)/", "body")}
      ${
        challenged
          ? `<todouble assign_to="cseqstep" variable="cseqtext"/>
      <subtract assign_to="cseqstep" variable="challengedcseq"/>
      <test assign_to="samecseq" variable="cseqstep" compare="less_than" value="1"/>`
          : ""
      }`,
    strictRefusals: `<nop next="toolarge" test="toolarge"/>
  <nop next="foreign" test="foreign"/>
  ${challenged ? `<nop next="samecseq" test="samecseq"/>` : ""}`,
    strictInDialog: `<ereg regexp="[0-9]+" search_in="hdr" header="CSeq:" check_it="false" assign_to="cseqtext2"/>
      <todouble assign_to="cseqstep" variable="cseqtext2"/>
      <subtract assign_to="cseqstep" variable="lastcseq"/>
      <test assign_to="stalecseq" variable="cseqstep" compare="less_than" value="1"/>
      <todouble assign_to="lastcseq" variable="cseqtext2"/>`,
    strictOrder: `<nop next="stalecseq" test="stalecseq"/>`,
    strictReplies: `<label id="toolarge"/>
  ${finalAnswer(513, "Message Too Large")}
  <recv request="ACK" next="done"/>
  <label id="foreign"/>
  ${finalAnswer(488, "Not Acceptable Here")}
  <recv request="ACK" next="done"/>
  <label id="samecseq"/>
  ${finalAnswer(400, "CSeq Not Incremented")}
  <recv request="ACK" next="done"/>
  <label id="stalecseq"/>
  ${finalAnswer(500, "CSeq Out Of Order")}
  <nop next="done"/>`,
  };
}

/** SIPp as the carrier on `127.0.0.1:port` for one call at a time (stop it and start another to change behaviour). */
export async function startCarrier(port: number, media: MediaEcho, behaviour: CarrierBehaviour): Promise<Carrier> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "leaddesk-carrier-"));
  const trace = path.join(dir, "messages.log");
  const args = [
    "-i",
    "127.0.0.1",
    "-p",
    String(port),
    "-nostdin",
    "-trace_msg",
    "-message_file",
    trace,
    "-trace_err",
    "-error_file",
    path.join(dir, "errors.log"),
  ];
  // SIPp reads pauses and reply codes when it loads the scenario: they are filled in here, not with -set.
  const fill = (file: string, values: Record<string, string>) => {
    const text = fs.readFileSync(path.join(HERE, file), "utf8").replace(/\{\{(\w+)\}\}/g, (_, key: string) => values[key]);
    const target = path.join(dir, file);
    fs.writeFileSync(target, text);
    return target;
  };
  if ("answer" in behaviour) {
    const { challenge, digest, strict = false } = behaviour.answer;
    args.push(
      "-sf",
      fill("carrier-answer.xml", {
        ring: String(behaviour.answer.ringMs ?? 200),
        mip: "127.0.0.1",
        mport: String(media.port),
        challenge: challenge ? digestChallenge(challenge, strict, digest) : "",
        ...strictness(strict, challenge !== undefined),
      }),
    );
  } else if ("hangUp" in behaviour) {
    args.push("-sf", fill("carrier-hangs-up.xml", { mip: "127.0.0.1", mport: String(media.port), after: String(behaviour.hangUp.afterMs) }));
  } else if ("silent" in behaviour) {
    args.push("-sf", fill("carrier-silent.xml", {}));
  } else if ("callIn" in behaviour) {
    const from = behaviour.callIn.from ?? "380501112233";
    args.push(
      "-sf",
      behaviour.callIn.cancelAfterMs === undefined
        ? fill("carrier-call.xml", { mip: "127.0.0.1", mport: String(media.port), from })
        : fill("carrier-call-cancel.xml", { mip: "127.0.0.1", mport: String(media.port), from, cancel: String(behaviour.callIn.cancelAfterMs) }),
      "-s",
      behaviour.callIn.extension,
      "-m",
      "1",
      behaviour.callIn.kamailio,
    );
  } else {
    args.push("-sf", fill("carrier-reject.xml", { code: String(behaviour.reject.code), reason: behaviour.reject.reason }));
  }
  const daemon = startDaemon("sipp", SIPP_PATH, args, { TERM: "dumb" });
  const messages = () => (fs.existsSync(trace) ? fs.readFileSync(trace, "utf8") : "");
  // SIPp has bound its port once it has written its trace file header or a few hundred ms passed.
  await new Promise((r) => setTimeout(r, 500));
  if (daemon.child.exitCode !== null) throw new Error(`sipp exited at once:\n${daemon.log()}`);
  return {
    daemon,
    messages,
    async waitForMessage(pattern, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const match = messages().match(pattern);
        if (match) return match[0];
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`the carrier never saw ${pattern}; its messages:\n${messages().slice(-4000)}\n${daemon.log().slice(-1000)}`);
    },
    async replyTo(method, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      const cseq = new RegExp(`^CSeq:\\s*\\d+ ${method}\\b`, "m");
      while (Date.now() < deadline) {
        const reply = messagesStarting(messages(), /^SIP\/2\.0 \d+/).find((m) => cseq.test(m));
        if (reply) return reply.split("\n")[0].trim();
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`the carrier never answered a ${method}; its messages:\n${messages().slice(-4000)}`);
    },
    async stop() {
      // Debug aid: what the carrier received and sent, appended to CARRIER_LOG (read it as a carrier would).
      if (process.env.CARRIER_LOG) fs.appendFileSync(process.env.CARRIER_LOG, messages());
      await daemon.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

// Reading the carrier's trace (Carrier.messages()) as a carrier reads what it receives.

/** Every SIP message of the trace whose first line matches `start`, whole (the trace separates them by dashes). */
export function messagesStarting(trace: string, start: RegExp): string[] {
  return trace
    .split(/^-{20,}.*$/m)
    .map((part) =>
      part
        .trim()
        .replace(/^UDP message (?:sent|received)[^\n]*\n/, "")
        .trim(),
    )
    .filter((part) => start.test(part.split("\n")[0]));
}
export const cseqOf = (message: string) => Number(/^CSeq:\s*(\d+)/im.exec(message)![1]);
/** A header's value in a message of the trace (its first such header). */
export const headerOf = (message: string, name: string) => new RegExp(`^${name}:\\s*(.*)$`, "im").exec(message)?.[1].trim();
/** What identifies a party in a From (or To): its URI and its tag, whatever the spacing around them. */
export function partyOf(message: string, name: "From" | "To") {
  const value = headerOf(message, name) ?? "";
  return { uri: /<([^>]*)>/.exec(value)?.[1], tag: /;\s*tag=([^;\s]+)/i.exec(value)?.[1] };
}
/**
 * The bytes a message takes on the wire: CRLF line ends, as sent, and the ones the trace's reading trimmed (the
 * last line of the body ends with one; a message without a body ends with the blank line after its headers).
 */
export function wireBytes(message: string) {
  const text = message.trim().replace(/\r?\n/g, "\r\n");
  return Buffer.byteLength(text) + (text.includes("\r\n\r\n") ? 2 : 4);
}
