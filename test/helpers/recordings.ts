import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { encodeG711 } from "../../server/core/recordings/pcap-audio";
import { escapedCallId } from "../../server/core/recordings/spool";

/**
 * A recorded call as rtpengine 10.5 leaves it in its spool (decision 054): a raw-IP pcap of the packets it
 * received on both legs, and the metadata file with the SDP it sent each way (RTP/SAVPF towards the browser,
 * RTP/AVP towards the carrier). The manager says one tone (PCMU), the client another (PCMA), 20 ms a packet.
 */
export const MANAGER_PORT = 30_010;
export const CLIENT_PORT = 30_012;

export interface FixtureCall {
  seconds: number;
  managerHz: number;
  clientHz: number;
  /** Arrival of the first packet (ms since the epoch). */
  startMs?: number;
  /** Write the metadata as rtpengine does at the call's end (metadata/…txt), or as it is during it (tmp/…tmp). */
  finished?: boolean;
  /** Cut the pcap this many bytes before its end (a disk that filled, a killed rtpengine). */
  truncate?: number;
}

function tone(hz: number, count: number, from: number): Int16Array {
  return Int16Array.from({ length: count }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * hz * (from + i)) / 8000)));
}

function ipUdp(srcPort: number, dstPort: number, payload: Buffer): Buffer {
  const header = Buffer.alloc(28);
  header[0] = 0x45;
  header.writeUInt16BE(28 + payload.length, 2);
  header[8] = 64;
  header[9] = 17;
  Buffer.from([127, 0, 0, 1]).copy(header, 12);
  Buffer.from([127, 0, 0, 1]).copy(header, 16);
  header.writeUInt16BE(srcPort, 20);
  header.writeUInt16BE(dstPort, 22);
  header.writeUInt16BE(8 + payload.length, 24);
  return Buffer.concat([header, payload]);
}

function rtp(payloadType: number, sequence: number, timestamp: number, ssrc: number, audio: Buffer): Buffer {
  const header = Buffer.alloc(12);
  header[0] = 0x80;
  header[1] = payloadType;
  header.writeUInt16BE(sequence & 0xffff, 2);
  header.writeUInt32BE(timestamp >>> 0, 4);
  header.writeUInt32BE(ssrc >>> 0, 8);
  return Buffer.concat([header, audio]);
}

export function fixturePcap(call: FixtureCall): Buffer {
  const start = call.startMs ?? Date.now() - call.seconds * 1000;
  const records: Buffer[] = [];
  const global = Buffer.alloc(24);
  global.writeUInt32LE(0xa1b2c3d4, 0);
  global.writeUInt16LE(2, 4);
  global.writeUInt16LE(4, 6);
  global.writeUInt32LE(65535, 16);
  global.writeUInt32LE(101, 20); // LINKTYPE_RAW, rtpengine's --recording-format=raw
  records.push(global);
  const packets = call.seconds * 50;
  for (let i = 0; i < packets; i++) {
    for (const [port, payloadType, hz, ssrc, jitter] of [
      [MANAGER_PORT, 0, call.managerHz, 0x1111, 3],
      [CLIENT_PORT, 8, call.clientHz, 0x2222, 7],
    ] as const) {
      const samples = tone(hz, 160, i * 160);
      const body = encodeG711(samples, payloadType === 0 ? "PCMU" : "PCMA");
      // RTP timestamps from 1000 on; arrivals with a little jitter (the timeline must follow the timestamps).
      const frame = ipUdp(40_000, port, rtp(payloadType, i, 1000 + i * 160, ssrc, body));
      const at = start + i * 20 + (i % 5 === 0 ? jitter : 0);
      const record = Buffer.alloc(16);
      record.writeUInt32LE(Math.floor(at / 1000), 0);
      record.writeUInt32LE(Math.round((at % 1000) * 1000), 4);
      record.writeUInt32LE(frame.length, 8);
      record.writeUInt32LE(frame.length, 12);
      records.push(record, frame);
    }
  }
  const whole = Buffer.concat(records);
  return call.truncate ? whole.subarray(0, whole.length - call.truncate) : whole;
}

export function fixtureMetadata(pcapPath: string): string {
  const sdp = (port: number, proto: string) =>
    `v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio ${port} ${proto} 0 8\r\na=sendrecv\r\n`;
  return [
    pcapPath,
    "",
    "",
    "Timestamp started ms: 1",
    "SDP mode: offer",
    "SDP before RTP packet: 1",
    "",
    sdp(CLIENT_PORT, "RTP/AVP"),
    "Timestamp started ms: 2",
    "SDP mode: answer",
    "SDP before RTP packet: 1",
    "",
    sdp(MANAGER_PORT, "RTP/SAVPF"),
    "Timestamp terminated ms(first monologue): 3",
  ].join("\n");
}

/** Writes a recorded call into an rtpengine spool folder; answers the files. */
export function writeRecordedCall(spool: string, sipCallId: string, call: FixtureCall) {
  const name = `${escapedCallId(sipCallId)}-${crypto.randomBytes(8).toString("hex")}`;
  for (const dir of ["pcaps", "metadata", "tmp"]) fs.mkdirSync(path.join(spool, dir), { recursive: true });
  const pcap = path.join(spool, "pcaps", `${name}.pcap`);
  fs.writeFileSync(pcap, fixturePcap(call));
  const metadata =
    call.finished === false ? path.join(spool, "tmp", `rtpengine-meta-${name}.tmp`) : path.join(spool, "metadata", `rtpengine-meta-${name}.txt`);
  fs.writeFileSync(metadata, fixtureMetadata(pcap));
  return { pcap, metadata };
}

/** Seconds of audio an Ogg Opus file holds so far: its last page's granule position (48 kHz samples). */
export function oggSeconds(file: string): number {
  const data = fs.readFileSync(file);
  const last = data.lastIndexOf("OggS");
  return last < 0 || last + 14 > data.length ? 0 : Number(data.readBigUInt64LE(last + 6)) / 48_000;
}

/** A recording decoded by Debian's opusdec: 8 kHz, the channels apart. */
export function decodeRecording(file: string): { rate: number; channels: [Float32Array, Float32Array] } {
  const wav = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "rec-decode-")), "out.wav");
  execFileSync("opusdec", ["--quiet", "--rate", "8000", file, wav]);
  const data = fs.readFileSync(wav);
  fs.rmSync(path.dirname(wav), { recursive: true, force: true });
  let at = 12;
  let channels = 0;
  let rate = 0;
  while (at + 8 <= data.length) {
    const id = data.toString("ascii", at, at + 4);
    const size = data.readUInt32LE(at + 4);
    if (id === "fmt ") {
      channels = data.readUInt16LE(at + 10);
      rate = data.readUInt32LE(at + 12);
    }
    if (id === "data") {
      const frames = Math.floor(Math.min(size, data.length - at - 8) / (2 * channels));
      const left = new Float32Array(frames);
      const right = new Float32Array(frames);
      for (let i = 0; i < frames; i++) {
        left[i] = data.readInt16LE(at + 8 + i * 2 * channels) / 32768;
        right[i] = data.readInt16LE(at + 8 + i * 2 * channels + 2) / 32768;
      }
      if (channels !== 2) throw new Error(`the recording has ${channels} channels, not 2`);
      return { rate, channels: [left, right] };
    }
    at += 8 + size + (size % 2);
  }
  throw new Error("opusdec wrote no audio");
}

/** The strength of one frequency in a signal (Goertzel), relative to the signal's whole power. */
export function toneShare(samples: Float32Array, rate: number, hz: number): number {
  const k = (2 * Math.PI * hz) / rate;
  const coefficient = 2 * Math.cos(k);
  let s1 = 0;
  let s2 = 0;
  let power = 0;
  for (const x of samples) {
    const s0 = x + coefficient * s1 - s2;
    s2 = s1;
    s1 = s0;
    power += x * x;
  }
  const magnitude = s1 * s1 + s2 * s2 - coefficient * s1 * s2;
  return power === 0 ? 0 : (2 * magnitude) / (samples.length * power);
}

/** A WAV file of a steady tone (48 kHz mono), for Chromium's fake microphone (--use-file-for-fake-audio-capture). */
export function toneWav(hz: number, seconds = 5): string {
  const rate = 48_000;
  const samples = rate * seconds;
  const data = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) data.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * hz * i) / rate)), i * 2);
  const header = Buffer.alloc(44);
  header.write("RIFF", 0);
  header.writeUInt32LE(36 + data.length, 4);
  header.write("WAVEfmt ", 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write("data", 36);
  header.writeUInt32LE(data.length, 40);
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "tone-")), `tone-${hz}.wav`);
  fs.writeFileSync(file, Buffer.concat([header, data]));
  return file;
}
