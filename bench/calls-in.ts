import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Page } from "playwright-core";
import { SIPP_PATH } from "../test/sip/carrier";
import { freePort } from "../test/helpers/ports";

/**
 * The calls bench's calls in (part 6, issue 42): SIPp as the carrier calling the trunk's number at Kamailio's UDP
 * socket, each call from its own client (carrier-calls-in.xml beside this file), and the managers' softphones of
 * the bench's one page noting when each call rings them and taking it by a fixed rule.
 */
const HERE = path.dirname(new URL(import.meta.url).pathname);

/** One SIP message of SIPp's -trace_msg file, with its wall-clock time (ms). */
export interface Traced {
  at: number;
  sent: boolean;
  body: string;
}

export interface CallsInOptions {
  /** Kamailio's UDP socket, "ip:port". */
  kamailio: string;
  /** The trunk number the clients dial (the INVITE's request URI). */
  trunkNumber: string;
  /** Where the carrier's SDP points its media (the bench's media echo). */
  mediaPort: number;
  /** The clients' numbers, one a call, in order. */
  callers: string[];
  /** New calls a second. */
  rate: number;
  /** At most this many calls open at once (SIPp's -l). */
  limit: number;
}

/** SIPp places one call per caller at `rate` a second; resolves when every call is over, with SIPp's trace. */
export async function callsIn(options: CallsInOptions): Promise<{ messages: string; exitCode: number | null; output: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "leaddesk-bench-calls-in-"));
  try {
    const scenario = path.join(dir, "carrier-calls-in.xml");
    fs.writeFileSync(
      scenario,
      fs
        .readFileSync(path.join(HERE, "carrier-calls-in.xml"), "utf8")
        .replaceAll("{{mip}}", "127.0.0.1")
        .replaceAll("{{mport}}", String(options.mediaPort)),
    );
    const callers = path.join(dir, "callers.csv");
    fs.writeFileSync(callers, `SEQUENTIAL\n${options.callers.map((number) => `${number};`).join("\n")}\n`);
    const trace = path.join(dir, "messages.log");
    const args = [
      "-sf",
      scenario,
      "-inf",
      callers,
      "-s",
      options.trunkNumber,
      "-i",
      "127.0.0.1",
      "-p",
      String(await freePort()),
      "-m",
      String(options.callers.length),
      "-r",
      String(options.rate),
      "-rp",
      "1000",
      "-l",
      String(options.limit),
      // A call that hears nothing for a minute is given up (and counted lost by the bench).
      "-recv_timeout",
      "60000",
      "-timeout",
      String(Math.ceil(options.callers.length / options.rate) + 120),
      "-nostdin",
      "-trace_msg",
      "-message_file",
      trace,
      options.kamailio,
    ];
    // Not spawnSync: the app answers Kamailio from this very process.
    const child = spawn(SIPP_PATH, args, { env: { ...process.env, TERM: "dumb" }, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000)));
    child.stderr.on("data", (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000)));
    const exitCode = await new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    return { messages: fs.existsSync(trace) ? fs.readFileSync(trace, "utf8") : "", exitCode, output };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** What the carrier saw of one call in. */
export interface CarrierCall {
  callId: string;
  caller: string;
  /** Its first INVITE sent. */
  inviteAt: number;
  /** INVITEs sent (retransmissions: Kamailio did not answer within 500 ms). */
  invites: number;
  /** The final answer to the INVITE: code and phrase, or null (none came). */
  final: { code: number; phrase: string } | null;
  /** The manager's BYE reached the carrier. */
  bye: boolean;
}

const callIdOf = (body: string) => body.match(/^Call-ID:\s*(\S+)/im)?.[1] ?? "";

/** Each call's story from SIPp's trace, in the order the calls were placed. */
export function carrierCalls(messages: Traced[]): CarrierCall[] {
  const byId = new Map<string, CarrierCall>();
  for (const m of messages) {
    // (The trace's own line first: "UDP message sent (N bytes):".)
    const body = m.body.replace(/^[^\n]*\n/, "").trimStart();
    const id = callIdOf(body);
    if (!id) continue;
    if (m.sent && /^INVITE /.test(body)) {
      const known = byId.get(id);
      if (known) known.invites += 1;
      else
        byId.set(id, { callId: id, caller: /^From:[^<]*<sip:([^@]+)@/im.exec(body)?.[1] ?? "", inviteAt: m.at, invites: 1, final: null, bye: false });
      continue;
    }
    const call = byId.get(id);
    if (!call) continue;
    const reply = /^SIP\/2\.0 (\d{3}) ?(.*)$/m.exec(body.split("\n")[0]);
    if (!m.sent && reply && /^CSeq:\s*\d+ INVITE/im.test(body) && Number(reply[1]) >= 200 && !call.final) {
      call.final = { code: Number(reply[1]), phrase: reply[2].trim() };
    }
    if (!m.sent && /^BYE /.test(body)) call.bye = true;
  }
  return [...byId.values()];
}

/** A call in as a softphone of the page saw it: sip.js's onInvite for it, by the page's clock. */
export interface Ring {
  phone: number;
  callId: string;
  at: number;
  /** The softphone rang (it refuses a call while its line is busy: 486). */
  rang: boolean;
  answeredAt: number | null;
  hungUpAt: number | null;
}

interface PhonesWindow {
  __phones: Array<{
    answer(): void;
    hangUp(): Promise<void>;
    subscribe(listener: (state: { call: string; direction: string | null; sipCallId: string | null }) => void): () => void;
    getState(): { call: string; direction: string | null; sipCallId: string | null };
  }>;
  __rings: Ring[];
}

/**
 * Every softphone of the page (bench/calls.ts openPhones) notes each call in that reaches it (sip.js's onInvite,
 * wrapped on the phone: the moment the call rings the manager) and takes it as a manager in a hurry would: answers
 * `answerMs` after it rings, talks `holdMs`, hangs up. Call once per page; a ring names its phone by `offset` (the
 * page's first manager among all) plus its place in the page.
 */
export async function answerCallsIn(page: Page, answerMs: number, holdMs: number, offset = 0): Promise<void> {
  await page.evaluate(
    ({ answerMs, holdMs, offset }) => {
      const w = window as unknown as PhonesWindow;
      w.__rings = [];
      w.__phones.forEach((phone, i) => {
        const own = phone as unknown as { onInvite(invitation: { request: { callId: string } }): void };
        const original = own.onInvite.bind(phone);
        own.onInvite = (invitation) => {
          const at = Date.now();
          original(invitation);
          const state = phone.getState();
          const ring: Ring = {
            phone: offset + i,
            callId: invitation.request.callId,
            at,
            rang: state.call === "ringing" && state.sipCallId === invitation.request.callId,
            answeredAt: null,
            hungUpAt: null,
          };
          w.__rings.push(ring);
          if (!ring.rang) return;
          setTimeout(() => {
            const now = phone.getState();
            if (now.call === "ringing" && now.sipCallId === ring.callId) phone.answer();
          }, answerMs);
          const stop = phone.subscribe((next) => {
            if (next.sipCallId !== ring.callId) return stop();
            if (next.call === "inCall" && ring.answeredAt === null) {
              ring.answeredAt = Date.now();
              setTimeout(() => {
                if (phone.getState().sipCallId !== ring.callId) return;
                ring.hungUpAt = Date.now();
                void phone.hangUp();
              }, holdMs);
            }
            if (next.call === "ended" || next.call === "idle") stop();
          });
        };
      });
    },
    { answerMs, holdMs, offset },
  );
}

/** The rings noted so far (answerCallsIn), and forgets them. */
export function takeRings(page: Page): Promise<Ring[]> {
  return page.evaluate(() => {
    const w = window as unknown as PhonesWindow;
    return w.__rings.splice(0, w.__rings.length);
  });
}
