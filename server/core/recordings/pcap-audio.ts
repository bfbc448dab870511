import fs from "node:fs/promises";

/**
 * rtpengine's call recordings in user space (DESIGN §12, decision 054): one pcap per call, every packet rtpengine
 * received on either leg (SRTP already decrypted), with a made-up IP/UDP header whose destination is rtpengine's
 * own port for that leg. The call's metadata file holds the SDP rtpengine sent each way: the port in the
 * `RTP/SAVPF` one is where the browser (the manager) sends, the port in the plain `RTP/AVP` one is where the
 * carrier (the client) sends. Here: reading those packets into two 8 kHz tracks, G.711 decoded, on the time line
 * of their arrival, handed on one second at a time so a four-hour call needs no more memory than a short one.
 */

export const SAMPLE_RATE = 8000;
export type Channel = 0 | 1; // 0: the manager (left), 1: the client (right)

/** rtpengine's own port of each leg, from the SDP blocks of a metadata file. */
export interface LegPorts {
  manager: Set<number>;
  client: Set<number>;
}

export function legPortsOf(metadata: string): LegPorts {
  const ports: LegPorts = { manager: new Set(), client: new Set() };
  for (const match of metadata.matchAll(/^m=audio (\d+) ([A-Z/]+)/gm)) {
    const port = Number(match[1]);
    if (port === 0) continue;
    (match[2].includes("SAVP") ? ports.manager : ports.client).add(port);
  }
  return ports;
}

export interface Packet {
  /** Arrival, milliseconds since the epoch (with fractions). */
  atMs: number;
  dstPort: number;
  /** The UDP payload: an RTP (or RTCP) packet. */
  payload: Buffer;
}

/** How often the end of a pcap still being written is looked at again. */
const FOLLOW_POLL_MS = 250;

/**
 * Packets of a pcap file (rtpengine's raw IP or Ethernet format), read in chunks; a truncated tail is dropped.
 * `keepWaiting`: at the end of the file, asked whether rtpengine may still write to it (the call goes on); while
 * it says so the reader waits for more packets, so a call's audio is read while it runs (decision 054, 2026-11-29).
 */
export async function* pcapPackets(file: string, keepWaiting?: () => boolean | Promise<boolean>): AsyncGenerator<Packet> {
  const handle = await fs.open(file, "r");
  try {
    let buffer = Buffer.alloc(0);
    let offset = 0;
    const chunk = Buffer.alloc(1 << 20);
    let ended = false;
    const need = async (bytes: number): Promise<boolean> => {
      while (buffer.length - offset < bytes && !ended) {
        const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
        if (bytesRead === 0) {
          if (keepWaiting && (await keepWaiting())) {
            await new Promise((resolve) => setTimeout(resolve, FOLLOW_POLL_MS));
            continue;
          }
          ended = true;
        }
        buffer = Buffer.concat([buffer.subarray(offset), chunk.subarray(0, bytesRead)]);
        offset = 0;
      }
      return buffer.length - offset >= bytes;
    };
    if (!(await need(24))) return;
    const magic = buffer.readUInt32LE(0);
    const little = magic === 0xa1b2c3d4 || magic === 0xa1b23c4d;
    const big = magic === 0xd4c3b2a1 || magic === 0x4d3cb2a1;
    if (!little && !big) throw new Error("не pcap: неизвестная сигнатура файла");
    const nano = magic === 0xa1b23c4d || magic === 0x4d3cb2a1;
    const u32 = (at: number) => (little ? buffer.readUInt32LE(at) : buffer.readUInt32BE(at));
    const linkType = u32(20);
    // 1: Ethernet (--recording-format=eth); 101 or 12/14: raw IP (the default).
    const linkHeader = linkType === 1 ? 14 : linkType === 101 || linkType === 12 || linkType === 14 ? 0 : -1;
    if (linkHeader < 0) throw new Error(`pcap: неизвестный тип канала ${linkType}`);
    offset = 24;
    while (await need(16)) {
      const seconds = u32(offset);
      const fraction = u32(offset + 4);
      const captured = u32(offset + 8);
      if (captured > 262_144) throw new Error("pcap: повреждённая запись пакета");
      if (!(await need(16 + captured))) return;
      const frame = buffer.subarray(offset + 16, offset + 16 + captured);
      offset += 16 + captured;
      const packet = udpOf(frame, linkHeader);
      if (!packet) continue;
      yield { atMs: seconds * 1000 + (nano ? fraction / 1e6 : fraction / 1e3), ...packet };
    }
  } finally {
    await handle.close();
  }
}

function udpOf(frame: Buffer, linkHeader: number): Omit<Packet, "atMs"> | null {
  const ip = frame.subarray(linkHeader);
  if (ip.length < 1) return null;
  const version = ip[0] >> 4;
  let udpAt: number;
  if (version === 4) {
    if (ip[9] !== 17) return null;
    udpAt = (ip[0] & 0x0f) * 4;
  } else if (version === 6) {
    if (ip[6] !== 17) return null;
    udpAt = 40;
  } else return null;
  if (ip.length < udpAt + 8) return null;
  return { dstPort: ip.readUInt16BE(udpAt + 2), payload: ip.subarray(udpAt + 8) };
}

/** The audio of one RTP packet, as 16-bit samples, when it is G.711 (PCMU 0, PCMA 8); else null. */
export function rtpAudio(rtp: Buffer): { ssrc: number; timestamp: number; samples: Int16Array } | null {
  if (rtp.length < 12 || rtp[0] >> 6 !== 2) return null;
  const payloadType = rtp[1] & 0x7f;
  if (payloadType !== 0 && payloadType !== 8) return null; // RTCP (72-76 here), telephone-event, comfort noise
  let start = 12 + (rtp[0] & 0x0f) * 4;
  if (rtp[0] & 0x10) {
    if (rtp.length < start + 4) return null;
    start += 4 + rtp.readUInt16BE(start + 2) * 4;
  }
  let end = rtp.length;
  if (rtp[0] & 0x20) end -= rtp[rtp.length - 1];
  if (end <= start) return null;
  const table = payloadType === 0 ? ULAW : ALAW;
  const samples = new Int16Array(end - start);
  for (let i = start; i < end; i++) samples[i - start] = table[rtp[i]];
  return { ssrc: rtp.readUInt32BE(8), timestamp: rtp.readUInt32BE(4), samples };
}

const ULAW = Int16Array.from({ length: 256 }, (_, byte) => {
  const u = ~byte & 0xff;
  const t = (((u & 0x0f) << 3) + 0x84) << ((u & 0x70) >> 4);
  return u & 0x80 ? 0x84 - t : t - 0x84;
});

const ALAW = Int16Array.from({ length: 256 }, (_, byte) => {
  const a = byte ^ 0x55;
  let t = (a & 0x0f) << 4;
  const segment = (a & 0x70) >> 4;
  if (segment === 0) t += 8;
  else if (segment === 1) t += 0x108;
  else t = (t + 0x108) << (segment - 1);
  return a & 0x80 ? t : -t;
});

/** G.711 encoders, for tests that build a recording (the inverse of the tables above, to the nearest code). */
export function encodeG711(samples: Int16Array, law: "PCMU" | "PCMA"): Buffer {
  const table = law === "PCMU" ? ULAW : ALAW;
  // Sorted codes by value: a binary search finds the nearest one.
  const codes = Array.from({ length: 256 }, (_, code) => code).sort((a, b) => table[a] - table[b]);
  const out = Buffer.alloc(samples.length);
  for (let i = 0; i < samples.length; i++) {
    let lo = 0;
    let hi = 255;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (table[codes[mid]] < samples[i]) lo = mid + 1;
      else hi = mid;
    }
    const below = codes[Math.max(0, lo - 1)];
    out[i] = Math.abs(table[below] - samples[i]) < Math.abs(table[codes[lo]] - samples[i]) ? below : codes[lo];
  }
  return out;
}

/**
 * Two tracks on one time line: each packet's samples go where its arrival puts them, and the packets that follow
 * in the same RTP stream (SSRC) by their RTP timestamp, so network jitter does not stretch the audio. A stream
 * whose timestamps drift from its arrivals by more than a second (a restart, a clock jump) is placed anew.
 * Whole seconds behind the newest arrival by more than WINDOW are handed to `flush` (interleaved stereo,
 * 16-bit little-endian); late packets for them are dropped.
 */
const WINDOW_SECONDS = 5;

export class StereoTimeline {
  private startMs: number | null = null;
  private seconds = new Map<number, [Int16Array | null, Int16Array | null]>();
  private flushed = 0; // seconds handed on
  private anchors = new Map<string, { position: number; timestamp: number }>();
  private end = 0; // samples

  constructor(private flush: (pcm: Buffer) => Promise<void>) {}

  async add(channel: Channel, atMs: number, audio: { ssrc: number; timestamp: number; samples: Int16Array }) {
    this.startMs ??= atMs;
    const arrival = Math.round(((atMs - this.startMs) * SAMPLE_RATE) / 1000);
    const key = `${channel}:${audio.ssrc}`;
    const anchor = this.anchors.get(key);
    let position = arrival;
    if (anchor) {
      const step = (audio.timestamp - anchor.timestamp) | 0; // 32-bit wrap
      position = anchor.position + step;
      if (Math.abs(position - arrival) > SAMPLE_RATE) position = arrival;
    }
    if (!anchor || position === arrival) this.anchors.set(key, { position, timestamp: audio.timestamp });
    this.write(channel, Math.max(0, position), audio.samples);
    const behind = Math.floor(arrival / SAMPLE_RATE) - WINDOW_SECONDS;
    if (behind > this.flushed) await this.flushUntil(behind);
  }

  private write(channel: Channel, position: number, samples: Int16Array) {
    for (let i = 0; i < samples.length;) {
      const at = position + i;
      const second = Math.floor(at / SAMPLE_RATE);
      if (second < this.flushed) {
        i += SAMPLE_RATE - (at % SAMPLE_RATE);
        continue;
      }
      let pair = this.seconds.get(second);
      if (!pair) this.seconds.set(second, (pair = [null, null]));
      const track = (pair[channel] ??= new Int16Array(SAMPLE_RATE));
      const from = at % SAMPLE_RATE;
      const count = Math.min(samples.length - i, SAMPLE_RATE - from);
      track.set(samples.subarray(i, i + count), from);
      i += count;
    }
    this.end = Math.max(this.end, position + samples.length);
  }

  private async flushUntil(second: number, lastSamples = SAMPLE_RATE) {
    for (; this.flushed < second; this.flushed++) {
      const pair = this.seconds.get(this.flushed);
      this.seconds.delete(this.flushed);
      const count = this.flushed === second - 1 ? lastSamples : SAMPLE_RATE;
      const pcm = Buffer.alloc(count * 4);
      for (let i = 0; i < count; i++) {
        pcm.writeInt16LE(pair?.[0]?.[i] ?? 0, i * 4);
        pcm.writeInt16LE(pair?.[1]?.[i] ?? 0, i * 4 + 2);
      }
      await this.flush(pcm);
    }
  }

  /** Hands on the rest; answers the whole length in milliseconds (first packet to the end of the last). */
  async finish(): Promise<number> {
    const seconds = Math.ceil(this.end / SAMPLE_RATE);
    const tail = this.end - (seconds - 1) * SAMPLE_RATE;
    if (seconds > this.flushed) await this.flushUntil(seconds, tail);
    return Math.round((this.end * 1000) / SAMPLE_RATE);
  }
}
